/**
 * A hook: refuses `bash` commands that match a pattern, before they run. The model gets
 * the refusal as the command's result ("Tool call refused: …") and can try another way;
 * you get a warning.
 *
 * The pattern is the regular expression in PANTO_BASH_DENY, or by default: `rm -rf`,
 * `sudo`, `git push --force` / `-f`, and `curl … | sh`.
 */
import type { Extension } from '@panto/core';

export const DEFAULT_DENY = String.raw`\brm\s+-[a-zA-Z]*r[a-zA-Z]*f|\brm\s+-[a-zA-Z]*f[a-zA-Z]*r|\bsudo\b|\bgit\s+push\b.*\s(--force|-f)\b|\bcurl\b[^|]*\|\s*(ba)?sh\b`;

const bashGuard: Extension = (panto) => {
  const deny = new RegExp(process.env.PANTO_BASH_DENY || DEFAULT_DENY);
  panto.on('before-tool-call', (call, context) => {
    if (call.name !== 'bash') return undefined;
    const command = typeof call.input.command === 'string' ? call.input.command : '';
    if (!deny.test(command)) return undefined;
    context.ui.notify(`bash-guard: refused ${JSON.stringify(command)}`, 'warning');
    return { type: 'refuse', reason: `this command matches the deny pattern ${deny} of bash-guard; do it another way or ask the user to run it` };
  });
};

export default bashGuard;
