// marked-terminal 7 ships no types (@types/marked-terminal is for 6 and pulls in marked < 12): what we use of it.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';
  export interface TerminalRendererOptions {
    reflowText?: boolean;
    width?: number;
    tab?: number;
    emoji?: boolean;
  }
  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: { ignoreIllegals?: boolean; language?: string }): MarkedExtension;
}
