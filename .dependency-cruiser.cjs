/**
 * The import rules `npm run lint` holds (dependency-cruiser; `npm run graph` prints the folder
 * graph they keep). Three kinds:
 *
 * - packages point one way: core ← aws ← functions, core ← cli; web/ depends on none of them;
 *   a package is reached only through its `exports` (`@panto/core/…`), never by a relative
 *   path into its `src/`; infra/ never imports sst.config.ts;
 * - inside a package, folders are floors (LAYERS, top first): a file may import its own floor
 *   and the floors below it, never one above, and never a peer on the same floor; the entry
 *   files (barrels) sit on top and nothing inside the package imports them;
 * - no import cycle, of values or of types: a type that two floors need sits on the lower one.
 *
 * Why dependency-cruiser: it reads TypeScript's own resolution (the `@panto/source` condition,
 * `import type`), states rules as data, and prints the graph it checked — one tool for the
 * check and the picture, kept on Node 20 by its 17.x line.
 */

/** Top first. A string is a folder of `src/`; `[...]` is one floor of peers; `FILES` are root files. */
const FLOOR = '(floor)';
const LAYERS = {
  'packages/core/src': [
    ['index.ts'],
    ['agent-kit.ts', 'store-kit.ts', 'deployment.ts'],
    'testing',
    'mcp',
    'extensions',
    'agent',
    'stores',
    ['session', 'providers'],
    FLOOR,
  ],
  'packages/aws/src': [
    ['index.ts'],
    ['service.ts', 'transfer.ts', 'claude-agent-sdk.ts', 'langgraph.ts', 'openai-agents.ts'],
    'adapters',
    'transfer',
    'store',
    'archive',
    'jsonl',
    'sessions',
    ['lease', 'ledger', 'partial', 'idempotency'],
    'meta',
    'entries',
    's3',
    'table',
    FLOOR,
  ],
  'packages/cli/src': [['index.ts'], 'entry', 'acp', 'commands', 'checkpoints', 'extensions', 'session', 'ui', 'agent', 'trust', 'tools', 'sandbox', FLOOR],
  'functions/src': [
    ['index.ts', 'deployment.ts'],
    ['handlers', 'local'],
    'app',
    ['routes', 'telemetry'],
    'a2a',
    'http',
    'services',
    ['agent', 'jobs'],
    'api',
    'auth',
    FLOOR,
  ],
  'web/src': [['main.tsx'], ['app.tsx'], 'components', 'hooks', FLOOR, 'api'],
};

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The path pattern of one entry of a floor. */
function entryPattern(root, entry, barrels) {
  if (entry === FLOOR) {
    // Root files that are not barrels.
    const not = barrels.map((file) => `(?!${literal(file)}$)`).join('');
    return `^${literal(root)}/${not}[^/]+$`;
  }
  if (/\.tsx?$/.test(entry)) return `^${literal(root)}/${literal(entry)}$`;
  return `^${literal(root)}/${literal(entry)}/`;
}

function layerRules() {
  const rules = [];
  for (const [root, floors] of Object.entries(LAYERS)) {
    const barrels = floors.flat().filter((entry) => /\.tsx?$/.test(entry));
    const patterns = floors.map((floor) => (Array.isArray(floor) ? floor : [floor]).map((entry) => entryPattern(root, entry, barrels)));
    patterns.forEach((floor, index) => {
      const above = patterns.slice(0, index).flat();
      floor.forEach((from, position) => {
        const peers = floor.filter((_, other) => other !== position);
        const forbidden = [...above, ...peers];
        if (forbidden.length === 0) return;
        rules.push({
          name: 'layer-points-up',
          comment: `${from}: a floor imports only itself and the floors below it (.dependency-cruiser.cjs, LAYERS)`,
          severity: 'error',
          from: { path: from },
          to: { path: forbidden.join('|') },
        });
      });
    });
  }
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle, of values or types: move the type both sides need to the lower floor.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'package-points-up',
      comment: 'Packages point one way: core ← aws ← functions, core ← cli; web depends on none of them.',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^(packages/(aws|cli)|functions|web)/' },
    },
    {
      name: 'package-points-up',
      severity: 'error',
      from: { path: '^packages/aws/' },
      to: { path: '^(packages/cli|functions|web)/' },
    },
    {
      name: 'package-points-up',
      severity: 'error',
      from: { path: '^packages/cli/' },
      to: { path: '^(packages/aws|functions|web)/' },
    },
    {
      name: 'package-points-up',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(packages/cli|web)/' },
    },
    {
      name: 'package-points-up',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(packages|functions)/' },
    },
    {
      name: 'past-the-exports',
      comment: 'Another package is reached through its exports map (`@panto/core/…`), not a relative path into its files.',
      severity: 'error',
      from: { path: '^(packages/[^/]+|functions|web|infra|scripts|bench)/' },
      to: { path: '^(packages/[^/]+|functions|web)/', pathNot: '^$1/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'infra-imports-the-app',
      comment: 'sst.config.ts wires infra/; infra/ never imports it back.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^sst\\.config\\.ts$' },
    },
    {
      name: 'fixtures-in-src',
      comment: "Test fixtures live under test/, not in a package's src/ (where they would ship and sit on a floor).",
      severity: 'error',
      from: { path: '/src/.*__fixtures__/' },
      to: {},
    },
    ...layerRules(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/|\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      conditionNames: ['@panto/source', 'import', 'node', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
