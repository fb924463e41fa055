import { argumentsOf, type Frame, jsonPieces, textPieces } from './frames.js';
import type { FakeReply } from './types.js';

/** A reply as OpenAI Chat Completions streams it: `chat.completion.chunk`s, the usage chunk when asked for, `[DONE]`. */
export function openaiFrames(reply: FakeReply, model: string, id: number, includeUsage: boolean): Frame[] {
  const base = {
    id: `chatcmpl-fake-${id}`,
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model,
    system_fingerprint: 'fp_fake',
  };
  const chunk = (delta: unknown, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    })}\n\n`;
  const frames: Frame[] = [{ kind: 'head', data: chunk({ role: 'assistant', content: '', refusal: null }) }];
  if (reply.thinking) {
    for (const piece of textPieces(reply.thinking.thinking)) frames.push({ kind: 'delta', data: chunk({ reasoning_content: piece }) });
  }
  for (const piece of textPieces(reply.text ?? '')) frames.push({ kind: 'delta', data: chunk({ content: piece }) });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    frames.push({
      kind: 'delta',
      data: chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_fake_${id}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    });
    for (const piece of jsonPieces(argumentsOf(call))) {
      frames.push({ kind: 'delta', data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  }
  const finishReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
  frames.push({ kind: 'tail', data: chunk({}, finishReason) });
  if (includeUsage) {
    const usage = reply.usage ?? {};
    const prompt = (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    const output = usage.output ?? 0;
    frames.push({
      kind: 'tail',
      data: `data: ${JSON.stringify({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: output,
          total_tokens: prompt + output,
          prompt_tokens_details: {
            cached_tokens: usage.cacheRead ?? 0,
            audio_tokens: 0,
            ...(usage.cacheWrite !== undefined ? { cache_write_tokens: usage.cacheWrite } : {}),
          },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      })}\n\n`,
    });
  }
  frames.push({ kind: 'tail', data: 'data: [DONE]\n\n' });
  return frames;
}
