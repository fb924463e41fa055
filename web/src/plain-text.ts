/**
 * Markdown as the plain text it reads as — for titles, which are a session's first prompt
 * and so often carry `**bold**`, `` `code` ``, `# headings` or links: the words stay, the
 * syntax goes. Read by marked's lexer (already in the page for rendering), so it strips
 * exactly what the transcript would render and leaves what it would show as text.
 */
import { Lexer, type Token } from 'marked';

/** The text of `tokens`: inline ones joined as they are, blocks with a space between. */
function textOf(tokens: readonly Token[], separator: string): string {
  return tokens.map((token) => tokenText(token)).join(separator);
}

function tokenText(token: Token): string {
  switch (token.type) {
    case 'list':
      return textOf(token.items as Token[], ' ');
    case 'table':
      return '';
    case 'br':
    case 'space':
      return ' ';
    case 'hr':
      return '';
    default: {
      const children = (token as { tokens?: Token[] }).tokens;
      if (children !== undefined && children.length > 0) return textOf(children, token.type === 'list_item' ? ' ' : '');
      return 'text' in token && typeof token.text === 'string' ? token.text : '';
    }
  }
}

/** `markdown` without its syntax, on one line: "**Fix** the `parser`" → "Fix the parser". */
export function plainText(markdown: string): string {
  const blocks = Lexer.lex(markdown, { gfm: true });
  return textOf(blocks, ' ').replace(/\s+/g, ' ').trim();
}
