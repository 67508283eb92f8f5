/**
 * The layer rules (docs/architecture.md, "Layers"), checked by `npm test` before mocha and by
 * test/architecture/layers.test.ts. Paths are relative to the repository root; the checker hands
 * dependency-cruiser the sources with every import kept, type-only ones included (docs/decisions/0120).
 */
module.exports = {
  forbidden: [
    {
      name: 'shared-imports-nothing',
      severity: 'error',
      comment: 'shared/ holds small generic helpers every layer may use: it imports nothing but itself.',
      from: { path: '^shared/' },
      to: { pathNot: '^shared/' },
    },
    {
      name: 'domain-imports-only-domain',
      severity: 'error',
      comment: 'domain/ is pure rules and texts: no other layer, no package, no Node module.',
      from: { path: '^domain/' },
      to: { pathNot: '^(domain|shared)/' },
    },
    {
      name: 'application-imports-no-adapter-or-shell',
      severity: 'error',
      comment: 'Use cases reach the world through their ports (application/ports), never an adapter or a shell.',
      from: { path: '^application/' },
      to: { path: '^(adapters|shells)/' },
    },
    {
      name: 'application-does-no-io',
      severity: 'error',
      comment: 'Use cases do no I/O of their own: of Node\'s modules only crypto (hashes, random ids).',
      from: { path: '^application/' },
      to: { dependencyTypes: ['core'], pathNot: '^(node:)?crypto$' },
    },
    {
      name: 'adapters-import-no-shell',
      severity: 'error',
      comment: 'Adapters implement ports; what they are given comes through the composition root, never from a shell.',
      from: { path: '^adapters/' },
      to: { path: '^shells/' },
    },
    {
      name: 'adapters-import-only-ports-of-application',
      severity: 'error',
      comment: 'Of the application layer an adapter sees the ports it implements, not the use cases.',
      from: { path: '^adapters/' },
      to: { path: '^application/', pathNot: '^application/ports/' },
    },
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment: 'No two modules import each other, directly or around a loop.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'No two folders import each other either (a folder counts with its subfolders), e.g. application/dashboards and application/refresh.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
  },
};
