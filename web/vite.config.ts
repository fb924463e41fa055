/**
 * The web client's build: a static single-page app in `dist/` (served by `npm start` at `/`,
 * deployed by sst.config.ts as a static site). Preact's JSX through Vite's own transform — no
 * plugin. Settings come in at build time as `VITE_PANTO_*` (see src/config.ts).
 */
import { defineConfig } from 'vite';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  server: { host: '127.0.0.1' },
});
