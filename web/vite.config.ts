/**
 * The web client's build: a static single-page app in `dist/` (served by `npm start` at `/`,
 * deployed by sst.config.ts as a static site). Preact's JSX through Vite's own transform — no
 * plugin. Settings come in at build time as `VITE_PANTO_*` (see src/config.ts); the built page
 * carries its Content-Security-Policy (src/csp.ts), the dev server does not (its client injects
 * scripts).
 */
import { defineConfig, loadEnv, type Plugin } from 'vite';
import { webConfig } from './src/config.js';
import { contentSecurityPolicy } from './src/csp.js';

/** The policy for the settings of this build, right after the page's charset: before anything it governs. */
function pagePolicy(env: Record<string, string>): Plugin {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(webConfig(env))}" />`;
  return {
    name: 'panto-page-policy',
    apply: 'build',
    transformIndexHtml: (html) => {
      const charset = '<meta charset="utf-8" />';
      if (!html.includes(charset)) throw new Error(`index.html has no ${charset}: the page's Content-Security-Policy goes right after it`);
      return html.replace(charset, `${charset}\n    ${meta}`);
    },
  };
}

export default defineConfig(({ mode }) => ({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [pagePolicy(loadEnv(mode, process.cwd(), 'VITE_PANTO_'))],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  server: { host: '127.0.0.1' },
}));
