/**
 * What `/model` alone shows: the model in use, then for each provider whether it can be used
 * here and its models that are not retired — the default first — with status and list
 * prices, fitted to the terminal's width.
 */
import { DEFAULT_MODELS, KNOWN_MODELS, modelStatus, PROVIDER_NAMES, type ModelInfo } from '@panto/core';
import { missingKey } from '../agent/model-catalog.js';
import { fitText, termRows } from '../ui/wrap.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Columns a model's status and prices keep beside its id before the widest ids go on lines of their own. */
const TEXT_COLUMNS = 30;

/**
 * The `/model` listing. With a `width` (a terminal), each provider's models are laid out in
 * its own columns, their status and prices wrapped beside the id; without one, one line a
 * model, in columns shared by every provider.
 *
 * @example
 * terminal.result(modelsText('anthropic/claude-sonnet-5-5', process.env, undefined, outputWidth(process.stdout)));
 */
export function modelsText(current: string, env: Env, day?: string, width?: number): string {
  const lines = [`model: ${current}`, '', fitText('Known models (switch with /model <provider>/<model>; other model names are passed on as they are):', width)];
  const groups = PROVIDER_NAMES.map((provider) => {
    const models = KNOWN_MODELS.filter((info) => info.provider === provider && modelStatus(info, day) !== 'retired').sort(
      (a, b) => Number(b.id === DEFAULT_MODELS[provider]) - Number(a.id === DEFAULT_MODELS[provider]),
    );
    const cells = models.map((info) => {
      const tags = [info.id === DEFAULT_MODELS[provider] ? 'default' : '', describeStatus(info, day)].filter((tag) => tag !== '').join(', ');
      return [info.id, tags, describePrices(info)] as const;
    });
    return { provider, cells };
  });
  const all = groups.flatMap((group) => group.cells);
  const idWidth = Math.max(...all.map(([id]) => id.length));
  const tagWidth = Math.max(...all.map(([, tags]) => tags.length));
  for (const { provider, cells } of groups) {
    const missing = missingKey({ provider }, env);
    lines.push(`  ${provider}${missing === undefined ? '' : `  (${missing.split(':')[0]})`}`);
    if (width === undefined) {
      for (const [id, tags, prices] of cells) lines.push(`    ${id.padEnd(idWidth)}  ${tags.padEnd(tagWidth)}  ${prices}`.trimEnd());
    } else {
      const rows = cells.map(([id, tags, prices]) => [id, tags === '' ? prices : `${tags} · ${prices}`] as const);
      lines.push(...termRows(rows, width, { indent: 4, maxColumn: width - 6 - TEXT_COLUMNS }));
    }
  }
  return lines.join('\n');
}

function describeStatus(info: ModelInfo, day?: string): string {
  const status = modelStatus(info, day);
  if (status === 'deprecated') return `deprecated${info.retiresOn ? ` until ${info.retiresOn}` : ''}${info.replacement ? `, use ${info.replacement}` : ''}`;
  return status === 'active' ? '' : status;
}

function describePrices(info: ModelInfo): string {
  const prices = info.prices;
  if (prices === undefined) return 'prices not known';
  if (prices.input === 0 && prices.output === 0) return 'free';
  return `$${prices.input} in · $${prices.output} out per million tokens`;
}
