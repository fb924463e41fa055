/**
 * A LangGraph.js graph with a human in the loop, for the checkpointer tests: `draft` asks a
 * model (any Chat Completions server) for an answer to the last message, `review` stops the
 * run with `interrupt()` until a person answers, `publish` runs only if they approved.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Annotation, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import OpenAI from 'openai';

export const ReviewState = Annotation.Root({
  messages: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
  approved: Annotation<boolean>({ reducer: (_left, right) => right, default: () => false }),
});

/** The graph, compiled with `checkpointer`; `modelURL` is a Chat Completions base URL (`…/v1`). */
export function reviewGraph(checkpointer: BaseCheckpointSaver, modelURL: string) {
  const model = new OpenAI({ apiKey: 'test', baseURL: modelURL, maxRetries: 0 });
  return new StateGraph(ReviewState)
    .addNode('draft', async (state) => {
      const stream = await model.chat.completions.create({
        model: 'gpt-test',
        stream: true,
        messages: [{ role: 'user', content: state.messages.at(-1) ?? '' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return { messages: [`draft: ${text}`] };
    })
    .addNode('review', (state) => {
      const verdict = interrupt({ draft: state.messages.at(-1) }) as string;
      return { approved: verdict === 'yes', messages: [`review: ${verdict}`] };
    })
    .addNode('publish', (state) => ({ messages: [state.approved ? 'published' : 'withdrawn'] }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}
