/**
 * Model text as safe HTML. Two guards, so that no raw HTML from the model reaches the page:
 * marked renders the markdown with every raw HTML token (block or inline) turned into
 * escaped text and images turned into plain links (no request leaves the page for them),
 * then DOMPurify removes whatever else could run (event handlers, `javascript:` links,
 * forms, styles). Code blocks are highlighted by highlight.js — its core and a few
 * languages, registered here, to keep the bundle small — each block under a line with its
 * language and a Copy code button.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked } from 'marked';

const LANGUAGES = { bash, diff, javascript, json, python, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in the model's text is shown as the text it is.
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}" rel="noopener noreferrer" target="_blank">${escapeHtml(text || href)}</a>`,
    // Every block says its language (what the model wrote after the fence, or "text") and
    // has a Copy code button, which the transcript listens to (components/copy-code.ts).
    code: ({ text, lang }) => {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const highlighted = language !== '' && hljs.getLanguage(language) ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const label = language === '' ? '' : ` data-language="${escapeHtml(language)}"`;
      const head = `<div class="code-head"><span class="code-language">${escapeHtml(language || 'text')}</span><button type="button" class="copy-code">Copy code</button></div>`;
      return `<div class="code-block">${head}<pre class="code"${label}><code class="hljs">${highlighted}</code></pre></div>\n`;
    },
  },
});

const ALLOWED_TAGS = [
  'a',
  'b',
  'blockquote',
  'br',
  // Only the Copy code button of a code block: raw HTML from the model never gets here (see above).
  'button',
  'code',
  'del',
  'div',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'li',
  'ol',
  'p',
  'pre',
  'span',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
  'input',
];

let hooked = false;

/** Markdown → sanitized HTML, for `dangerouslySetInnerHTML`. */
export function renderMarkdown(text: string): string {
  if (!hooked) {
    // Links open elsewhere and tell the target nothing.
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
      if (node.tagName === 'INPUT' && node.getAttribute('type') !== 'checkbox') node.remove();
    });
    hooked = true;
  }
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'class', 'data-language', 'type', 'checked', 'disabled', 'align', 'start', 'title', 'target', 'rel'],
    ALLOW_DATA_ATTR: false,
  });
}
