/**
 * The conversation the adapters bench grows, the same for every SDK: turn `n` is a user
 * prompt (~200 characters) and an answer (~1,500), and every other turn a tool call with a
 * 4 KB result before the answer — as bench/aws.ts grows a DynamoStore session.
 */

export const TURNS = 200;
/** The turns whose cost is printed: the second (the first is creation), the 100th (a one-item baseline's last few), and the last. */
export const MEASURED_TURNS = [2, 100, TURNS] as const;
/** The big entry of "a 500 KB entry". */
export const BIG_BYTES = 500 * 1024;
export const WRITERS = 2;
export const WRITER_TURNS = 20;

export interface TurnText {
  prompt: string;
  /** The tool call's result, on odd turns. */
  toolResult: string | null;
  answer: string;
}

export function turnText(n: number): TurnText {
  return {
    prompt: `Turn ${n}: ${'please look at this part of the code and explain it '.repeat(4)}`.slice(0, 200),
    toolResult: n % 2 === 1 ? `file-${n}.ts: ${'export const value = compute(input); '.repeat(120)}`.slice(0, 4096) : null,
    answer: `Answer ${n}: ${'the function reads the file and returns its lines. '.repeat(30)}`.slice(0, 1500),
  };
}

/** What happened to writes that two writers had acknowledged: `0 of 40 lost`. */
export function lostOf(acknowledged: number, found: number): string {
  return `${acknowledged - found} of ${acknowledged} acknowledged writes lost`;
}
