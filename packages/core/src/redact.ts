/**
 * Secrets taken out of text that leaves the process — an error message relayed to a client
 * or stored in a session, a trace, a log line. A provider's error can quote the credential
 * it was sent ("Incorrect API key provided: sk-…", a proxy echoing `Authorization: Bearer …`),
 * and a tool's or MCP server's error can quote its headers: what matches a credential's shape
 * becomes `[redacted]`, and so does every value registered with {@link addSecret} (the keys
 * a server holds), whatever its shape.
 */

const REDACTED = '[redacted]';

/** Shapes of credentials, each with what replaces a match (the label kept, the secret gone). */
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // `Authorization: Bearer <token>`, `Basic <credentials>`.
  [/\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, `$1$2${REDACTED}`],
  // Vendors' keys by prefix: OpenAI `sk-…`, `sk-proj-…` (also as OpenAI masks them, `sk-abc***wxyz`), Anthropic `sk-ant-…`.
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, REDACTED],
  // JSON Web Tokens (panto's own, an MCP server's).
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // Google API keys, GitHub and Slack tokens.
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/\b(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  // `api_key=…`, `"x-api-key": "…"`, `access_token: …`, `password=…` in a quoted request or URL.
  [
    /\b((?:x-)?api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|password)(["']?\s*[:=]\s*["']?)[^\s"',;&}]{4,}/gi,
    `$1$2${REDACTED}`,
  ],
];

/** Values shorter than this are not registered: they would redact ordinary words. */
const MIN_SECRET_LENGTH = 8;
const secrets = new Set<string>();

/**
 * Makes {@link redactSecrets} take `value` out of every text from now on, for the life of the
 * process (a server registers the API keys and MCP headers it holds). Values under 8
 * characters are ignored.
 *
 * @example
 * addSecret(process.env.OPENAI_API_KEY ?? '');
 */
export function addSecret(value: string): void {
  if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

/**
 * `text` with every registered secret and everything shaped like a credential replaced by
 * `[redacted]`.
 *
 * @example
 * redactSecrets('401 Incorrect API key provided: Bearer sk-proj-abc123def456'); // '401 Incorrect API key provided: Bearer [redacted]'
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `error` to log: its message, stack and causes (four deep) redacted, its name
 * kept. What is not an Error is logged as its redacted text.
 */
export function redactError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redactSecrets(error) : error;
  const copy = new Error(redactSecrets(error.message));
  copy.name = error.name;
  copy.stack = redactSecrets(error.stack ?? `${error.name}: ${error.message}`);
  if (error.cause !== undefined && depth < 4) copy.cause = redactError(error.cause, depth + 1);
  return copy;
}
