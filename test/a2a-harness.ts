/**
 * `@a2a-js/sdk`'s own client against the app (on loopback, api-harness.ts, or the local stack):
 * a client built from the Agent Card the server serves, with a bearer token on every call — as
 * another agent would call panto.
 */
import { type Message, Role, type Task } from '@a2a-js/sdk';
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

let messages = 0;

/** A client of the agent at `url` (its card at `<url>/.well-known/agent-card.json`) sending `bearer` (no Authorization header when null). */
export async function a2aClient(url: string, bearer: string | null): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return factory.createFromUrl(url);
}

/** A user's message with text parts (and a data part), in a context and task when given. */
export function userMessage(text: string | null, ids: { contextId?: string; taskId?: string } = {}, data?: object): Message {
  return {
    messageId: `test-message-${process.pid}-${Date.now()}-${++messages}`,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      ...(text === null ? [] : [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }]),
      ...(data === undefined ? [] : [{ content: { $case: 'data' as const, value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }]),
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** `SendMessage` of `message`; the task it answers (a message answer fails the test). */
export async function send(client: Client, message: Message): Promise<Task> {
  const result = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The text of a task's answer artifact ('' when it has none). */
export function answerOf(task: Task): string {
  return (task.artifacts[0]?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The text parts of a message. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}
