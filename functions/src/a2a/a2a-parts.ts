/** Building A2A's messages, parts and artifacts (the SDK's types, as its codecs read them). */
import { type Artifact, type Message, type Part, Role } from '@a2a-js/sdk';

/** A `text` part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** A `data` part: structured JSON. */
export function dataPart(value: object): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message of the task `taskId` in context `contextId`. */
export function a2aMessage(role: 'user' | 'agent', ids: { messageId: string; contextId: string; taskId: string }, parts: Part[]): Message {
  return { ...ids, role: role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The id of a task's one artifact: the answer, as the model wrote it. */
export const ANSWER_ARTIFACT_ID = 'answer';

/** The task's answer as an artifact (the text of every assistant message of the turn, in order). */
export function answerArtifact(text: string): Artifact {
  return { artifactId: ANSWER_ARTIFACT_ID, name: 'answer', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] };
}

/** The text parts of `message`, joined by newlines; null when it has none (a file or data part only). */
export function textOf(parts: readonly Part[]): { text: string; other: number } {
  const texts: string[] = [];
  let other = 0;
  for (const part of parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else other++;
  }
  return { text: texts.join('\n'), other };
}
