/**
 * The page's Content-Security-Policy, put in the built page as a `<meta>` (vite.config.ts), so
 * that it holds wherever the page is served — the local stack (which also sends it as a header)
 * or a static site on AWS that sends none. Scripts and styles from the page's own files only,
 * no inline script; requests to the page's origin, the API and streaming URLs the build names,
 * and the user pool's token endpoint. The sign-in token is kept in local storage (auth.ts),
 * which any script running on the origin could read: this is what keeps other scripts out.
 */
import type { WebConfig } from './config.js';

/** The origin of `url` when it is absolute; undefined for a path on the page's own origin. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    // Not an absolute URL: a path (or none) on the page's own origin, which 'self' covers.
    return undefined;
  }
}

export function contentSecurityPolicy(config: WebConfig): string {
  const origins = [config.apiUrl, config.streamUrl, config.hostedUi?.domain ?? ''].map(originOf).filter((origin) => origin !== undefined);
  const connect = ["'self'", ...new Set(origins)].join(' ');
  // No frame-ancestors: a <meta> policy cannot carry it (the local stack's header does).
  return `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src ${connect}; object-src 'none'; base-uri 'none'; form-action 'self'`;
}
