import { describe, expect, it } from 'vitest';
import { addSecret, redactError, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it('takes credentials of every common shape out of a provider error, keeping the words around them', () => {
    expect(redactSecrets('401 invalid_api_key: Incorrect API key provided: Bearer sk-proj-Ab12Cd34Ef56Gh78')).toBe(
      '401 invalid_api_key: Incorrect API key provided: Bearer [redacted]',
    );
    expect(redactSecrets('Incorrect API key provided: sk-abc12***************wxyz.')).toBe('Incorrect API key provided: [redacted].');
    expect(redactSecrets('key sk-ant-api03-AAAABBBBCCCC is revoked')).toBe('key [redacted] is revoked');
    expect(redactSecrets('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic [redacted]');
    expect(redactSecrets('signed by AKIAABCDEFGHIJKLMNOP')).toBe('signed by [redacted]');
    expect(redactSecrets('token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl expired')).toBe('token [redacted] expired');
    expect(redactSecrets('GET /v1?api_key=abcdef123456&x=1 failed; "x-api-key": "k-98765"')).toBe(
      'GET /v1?api_key=[redacted]&x=1 failed; "x-api-key": "[redacted]"',
    );
    expect(redactSecrets('ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa and xoxb-1234567890-abc')).toBe('[redacted] and [redacted]');
  });

  it('leaves text without credentials as it is, and is idempotent', () => {
    const plain = 'overloaded_error: Overloaded (the model is busy); retry in 5 s';
    expect(redactSecrets(plain)).toBe(plain);
    const once = redactSecrets('Bearer sk-proj-Ab12Cd34Ef56Gh78');
    expect(redactSecrets(once)).toBe(once);
  });

  it('takes out a registered secret whatever its shape; ignores one too short to be a secret', () => {
    addSecret('my-own-proxy-key-42');
    addSecret('short');
    expect(redactSecrets('the proxy refused my-own-proxy-key-42 (short)')).toBe('the proxy refused [redacted] (short)');
  });
});

describe('redactError', () => {
  it('copies an error to log with its message, stack and causes redacted, its name kept', () => {
    const cause = new Error('401 Bearer sk-proj-Ab12Cd34Ef56Gh78');
    const error = new TypeError('the call failed: sk-proj-Ab12Cd34Ef56Gh78', { cause });
    const copy = redactError(error) as Error & { cause: Error };
    expect(copy.name).toBe('TypeError');
    expect(copy.message).toBe('the call failed: [redacted]');
    expect(copy.stack).not.toContain('sk-proj');
    expect(copy.cause.message).toBe('401 Bearer [redacted]');
    expect(redactError('text sk-proj-Ab12Cd34Ef56Gh78')).toBe('text [redacted]');
    expect(redactError(42)).toBe(42);
  });
});
