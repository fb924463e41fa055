/**
 * Token counts where the wire gives none: about 4 characters per token, the rule of thumb
 * the providers publish for English text and code. Used by the offline provider for all of
 * its usage, and by every provider for the part of a cut-short call's usage that the wire
 * had not reported yet (see `MessageAssembler.partial`).
 */
import type { ProviderRequest } from './provider.js';

/** About how many tokens `text` is. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** About how many input tokens `request` is: its messages and its tool definitions. */
export function estimateRequestTokens(request: ProviderRequest): number {
  return estimateTokens(JSON.stringify(request.messages) + JSON.stringify(request.tools));
}
