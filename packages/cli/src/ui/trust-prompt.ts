import { createInterface } from 'node:readline';
import { TRUST_QUESTION, type AskTrust } from '../trust/folder-trust.js';
import { visible } from '../visible.js';
import type { InputStream, Terminal } from './terminal.js';

/**
 * Asks the trust question on the terminal: the lines naming what would run (control
 * characters shown as escapes: a file name must not rewrite the screen), then
 * "Trust this folder? [y/N]". Only `y` or `yes` trusts; Enter, Ctrl-C or Ctrl-D do not.
 */
export function terminalTrustPrompt(input: InputStream, terminal: Terminal): AskTrust {
  return (lines) => {
    terminal.stopSpinner();
    terminal.endLine();
    for (const line of lines) terminal.warn(visible(line));
    return new Promise((resolve) => {
      const rl = createInterface({ input, output: terminal.stderr as NodeJS.WritableStream, terminal: input.isTTY === true });
      let answered = false;
      rl.question(`${TRUST_QUESTION} `, (answer) => {
        answered = true;
        rl.close();
        resolve(/^(y|yes)$/i.test(answer.trim()));
      });
      rl.on('SIGINT', () => rl.close());
      rl.on('close', () => {
        if (!answered) {
          terminal.stderr.write('\n');
          resolve(false);
        }
      });
    });
  };
}
