import type { AssistantMessage, Message, StopReason, ToolCallBlock, ToolResultMessage, Usage } from '../messages.js';
import type { ProviderStreamEvent } from '../providers/provider.js';
import type { DiskMessage } from '../session/records.js';

/** How a step ended. */
export interface StepResult {
  /**
   * The stop reason of the step's last assistant message; `aborted` or `error` when the
   * step was cut short (then `error` says why).
   */
  stopReason: StopReason;
  /** Every message the step added to the conversation (all of them persisted). */
  messages: readonly Message[];
  /** Summed usage of the step's provider calls. */
  usage: Usage;
  /** The failure that ended the step, for `error` and `aborted`. */
  error?: Error;
  /** How many provider calls the step made. */
  providerCalls: number;
  /** True when the model had not finished: cut short, or stopped by `maxProviderCalls`. */
  incomplete: boolean;
}

/**
 * Everything the agent reports, in order. A step is framed by `step-start` … `step-end`, a
 * compaction by `compaction-start` … `compaction-end`; the provider's events in between
 * belong to it. `entries-persisted` follows every write to the store — inside a step or a
 * compaction, and on its own for `submitUserMessage` and `addSystemMessage`.
 */
export type AgentEvent =
  | { type: 'step-start' }
  | { type: 'message-start'; provider: string; model: string }
  | ProviderStreamEvent
  | { type: 'message-end'; message: AssistantMessage }
  | { type: 'tool-execution-start'; toolCall: ToolCallBlock }
  | { type: 'tool-execution-end'; toolCall: ToolCallBlock; result: ToolResultMessage }
  /** A batch of records reached the store (durably), then entered the conversation. */
  | { type: 'entries-persisted'; records: readonly DiskMessage[] }
  | { type: 'error'; error: Error }
  | { type: 'step-end'; result: StepResult }
  | { type: 'compaction-start' }
  | { type: 'compaction-end'; summary: string; usage: Usage };

/**
 * Receives events, in order (a step's, when passed to `runStep`; all of them, when given
 * to `agent.subscribe`). Contract: called synchronously; must not throw (a throwing
 * receiver is ignored, never allowed to break persistence) and should return quickly.
 */
export type Receiver = (event: AgentEvent) => void;
