/**
 * A tool: `word_count` counts the lines, words and characters of a text the model gives it.
 *
 * Copy it to ~/.panto/extensions/ (every project) or .panto/extensions/ (this one), or run
 * `panto --extension examples/extensions/word-count.ts`. Only types are imported from
 * @panto/core, so the file works wherever it is copied.
 */
import type { Extension } from '@panto/core';

const wordCount: Extension = (panto) => {
  panto.registerTool({
    name: 'word_count',
    description: 'Counts the lines, words and characters of a text. Use it instead of counting by eye.',
    input_schema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to count.' } },
      required: ['text'],
    },
    execute: async (input) => {
      if (typeof input.text !== 'string') return { content: 'text must be a string', is_error: true };
      const text = input.text;
      const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      const words = text.split(/\s+/).filter((word) => word !== '').length;
      return `${lines} lines, ${words} words, ${[...text].length} characters`;
    },
  });
};

export default wordCount;
