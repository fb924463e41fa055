import type { Message } from '@panto/core/agent-kit';
import { describe, expect, it } from 'vitest';
import { titleAfterFailedFirstPrompt } from './turn-title.js';

const system: Message = { role: 'system', content: 'Be brief.', mode: 'replace' };
const answered: Message[] = [system, { role: 'user', content: 'q1' }];

describe('titleAfterFailedFirstPrompt', () => {
  it('names the session after the prompt that goes on after a failed first prompt', () => {
    expect(titleAfterFailedFirstPrompt({ title: 'Failed first', dangling: 'Failed\n  first', conversation: [system] }, 'Second try')).toBe('Second try');
    expect(titleAfterFailedFirstPrompt({ title: 'Failed first', dangling: 'Failed first', conversation: [] }, '  Second\ttry ')).toBe('Second try');
  });

  it('keeps the title of a renamed session, of one whose failed prompt was not its first, and when nothing failed', () => {
    expect(titleAfterFailedFirstPrompt({ title: 'Renamed', dangling: 'Failed first', conversation: [system] }, 'Second try')).toBeNull();
    expect(titleAfterFailedFirstPrompt({ title: 'q1', dangling: 'q2 failed', conversation: answered }, 'q2 again')).toBeNull();
    expect(titleAfterFailedFirstPrompt({ title: 'q1', dangling: null, conversation: answered }, 'q2')).toBeNull();
    expect(titleAfterFailedFirstPrompt({ title: null, dangling: null, conversation: [] }, 'first')).toBeNull();
    // The same prompt sent again (Resend): nothing to change.
    expect(titleAfterFailedFirstPrompt({ title: 'Again', dangling: 'Again', conversation: [] }, 'Again')).toBeNull();
  });
});
