/**
 * The line under an answer: what it used, the model that wrote it (when the session's answers
 * came from more than one), **Copy** (the whole answer, as the model wrote it) and **Retry**
 * (the prompt sent again from the same point: a new answer on a new branch, this one kept under
 * Previous branch — the prompt's Edit with the words unchanged).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Usage } from '../api/wire.js';
import { copyText } from '../clipboard.js';
import { usageText } from '../format.js';

export interface AnswerBarProps {
  /** The answer as the model wrote it (markdown); empty: nothing to copy. */
  text: string;
  usage: Usage | null;
  /** The models that wrote it, shown when the session used more than one; undefined: not shown. */
  models: string[] | undefined;
  /** Sends the prompt again; undefined where it cannot be (no prompt, or one that may not be sent again from there). */
  onRetry: (() => void) | undefined;
  /** A turn runs or a branch switch is under way: no retry now. */
  busy: boolean;
}

export function AnswerBar({ text, usage, models, onRetry, busy }: AnswerBarProps) {
  const [copied, setCopied] = useState<'copied' | 'selected' | null>(null);
  const bar = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async (): Promise<void> => {
    if (await copyText(text)) setCopied('copied');
    else {
      // No clipboard here (an origin that is not secure): the answer is selected for Ctrl+C.
      selectAnswer(bar.current);
      setCopied('selected');
    }
  };
  return (
    <div class="answer-bar" ref={bar}>
      {usage !== null && <span class="usage">{usageText(usage)}</span>}
      {models !== undefined && <span class="answer-model">{models.join(', ')}</span>}
      <span class="answer-actions">
        {text !== '' && (
          <button type="button" class="quiet" aria-label="Copy answer" onClick={() => void copy()}>
            {copied === 'copied' ? 'Copied' : copied === 'selected' ? 'Selected: press Ctrl+C' : 'Copy'}
          </button>
        )}
        {onRetry !== undefined && (
          <button type="button" class="quiet" title="A new answer to the same prompt, on a new branch; this one stays" disabled={busy} onClick={onRetry}>
            Retry
          </button>
        )}
      </span>
    </div>
  );
}

/** Selects the answer's messages (not this bar), from the first to the last. */
function selectAnswer(bar: HTMLElement | null): void {
  const messages = bar?.closest('.answer')?.querySelectorAll('.assistant');
  const first = messages?.[0];
  const last = messages?.[messages.length - 1];
  if (!first || !last) return;
  const range = document.createRange();
  range.setStartBefore(first);
  range.setEndAfter(last);
  window.getSelection()?.removeAllRanges();
  window.getSelection()?.addRange(range);
}
