// The import rules `pnpm lint` checks (dependency-cruiser 17.x, the last major on Node 20):
// no import circle in any package, the floors of @sluice/core (ARCHITECTURE.md, "Layers":
// nothing imports a floor above its own), and a core that loads no `node:` module, framework
// or store client. scripts/test/import-rules.test.ts proves each rule still fails a fixture
// that breaks it, and that this tree passes.
//
// Exceptions are edges (a file to a file), each named with why; every other import between
// the same folders is still checked. Remove one when its edge goes (the test fails on an
// exception that no longer matches an import, so none outlives its reason).

const CORE = '^packages/core/src/';

/**
 * The floors of @sluice/core, lowest first (a file is on the first floor whose pattern
 * matches it). A file may import its own floor and the floors below, never one above.
 */
const FLOORS = [
  ['common', `${CORE}common/`],
  // The operator entries' port: what a Store exposes (`Store.operations`, an OperationsSync)
  // and the registry every limiter and MemoryStore asks. Below the stores, which read it.
  ['operations port', `${CORE}operations/(entry|registry)\\.ts$`],
  ['algorithms', `${CORE}algorithms/`],
  ['stores', `${CORE}stores/`],
  ['store-failure, adaptive', `${CORE}(store-failure|adaptive)/`],
  // Limit, throttle strings, named limiters, start-up checks: what the user asked for.
  ['limits', `${CORE}limits/(?!rate-limiter\\.ts$)`],
  // One rule for a limit's keys (limitKeyPrefix takes a Limit, so above limits/).
  ['keys', `${CORE}keys/`],
  ['engine', `${CORE}engine/`],
  // The front doors: the HTTP pipeline, the protocol limiter, RateLimiter.
  ['front doors', `${CORE}(http/(?!index\\.ts$)|protocol/|limits/rate-limiter\\.ts$)`],
  // LimitOperations and the rest of the operator-entries feature.
  ['operations', `${CORE}operations/`],
  // The package's entry points: imported by nothing inside the core.
  ['entries', `${CORE}([^/]+\\.ts|http/index\\.ts)$`],
];

/**
 * Imports that run up a floor today. `typeOnly`: the edge is type-only, and turns into an
 * error if it ever carries a value.
 */
const FLOOR_EXCEPTIONS = [
  {
    name: 'port-typed-by-its-users',
    from: 'operations/registry.ts',
    to: ['http/limiter/operated.ts', 'operations/snapshot.ts'],
    typeOnly: true,
    why: "the registry holds the HTTP limiter's answers to an entry and the snapshots, so it names their types (HttpOperations, OperationsSnapshot); they move into operations/entry.ts with the engine",
  },
  {
    name: 'front-doors-type-the-snapshot',
    from: [
      'http/limiter/operated.ts',
      'http/limiter/plan.ts',
      'protocol/protocol-limiter.ts',
      'protocol/protocol-operations.ts',
    ],
    to: ['operations/snapshot.ts'],
    typeOnly: true,
    why: 'the front doors ask the operations snapshot, whose types (OperationsSnapshot, Override, Inspectable) are declared beside its code, a floor above them',
  },
  {
    name: 'rate-limiter-checks-entries-itself',
    from: 'limits/rate-limiter.ts',
    to: ['operations/key-operations.ts'],
    typeOnly: false,
    why: "RateLimiter's own check of the operator entries (one of the copies the engine replaces): KeyOperations applies bans, allows and overrides to a RateLimiter's keys",
  },
];

/**
 * The one import circle left: the HTTP limiter and the operations feature read each other
 * (snapshot.ts hands the HTTP answers to an entry, operated.ts, to the registry; plan.ts and
 * operated.ts type the snapshot; MemoryStore asks the registry). Every cycle it forms passes
 * through operations/registry.ts or operations/snapshot.ts and stays inside these files; a
 * cycle anywhere else, or one that reaches another file, fails.
 */
const CIRCLE_EXCEPTION = {
  name: 'operations-and-http-limiter',
  through: `${CORE}operations/(registry|snapshot)\\.ts$`,
  files: [
    'http/limiter/held.ts',
    'http/limiter/operated.ts',
    'http/limiter/plan.ts',
    'http/metrics/metrics.ts',
    'http/options/options.ts',
    'http/request/proxy-warnings.ts',
    'http/verdict/denial.ts',
    'http/verdict/shadow.ts',
    'http/verdict/verdict.ts',
    'operations/plan-inspect.ts',
    'operations/registry.ts',
    'operations/snapshot.ts',
    'store-failure/store-failure.ts',
    'stores/memory-store.ts',
  ],
};

const list = (v) => (Array.isArray(v) ? v : [v]);
const escaped = (file) => file.replace(/[.]/g, '\\.');
const exact = (files) => `${CORE}(${list(files).map(escaped).join('|')})$`;

/** One rule per floor (split around the exceptions' edges), forbidding the floors above. */
function floorRules() {
  const rules = [];
  FLOORS.forEach(([floor, path], i) => {
    const above = FLOORS.slice(i + 1).map(([, p]) => p);
    if (above.length === 0) return;
    const upward = `(${above.join(')|(')})`;
    // A file is on the first floor whose pattern it matches: leave out the floors below.
    const below = FLOORS.slice(0, i).map(([, p]) => p);
    const notAbove = [...below, path];
    const from = below.length === 0 ? { path } : { path, pathNot: below };
    const comment = `${floor}: imports only its own floor and those below (ARCHITECTURE.md, "Layers")`;
    const excepted = FLOOR_EXCEPTIONS.flatMap((e) =>
      list(e.from).map((file) => ({ ...e, file })),
    ).filter((e) => new RegExp(path).test(`packages/core/src/${e.file}`));
    const exceptedFiles = excepted.map((e) => e.file);
    rules.push({
      name: `core-floors: ${floor}`,
      severity: 'error',
      comment,
      from:
        exceptedFiles.length === 0
          ? from
          : { ...from, pathNot: [...list(from.pathNot ?? []), exact(exceptedFiles)] },
      to: { path: upward, pathNot: notAbove },
    });
    for (const e of excepted) {
      rules.push({
        name: `core-floors: ${floor} (${e.file}, less its exception ${e.name})`,
        severity: 'error',
        comment,
        from: { path: exact(e.file) },
        to: { path: upward, pathNot: [...notAbove, exact(e.to)] },
      });
      if (e.typeOnly) {
        rules.push({
          name: `core-floors: ${floor} (exception ${e.name} is type-only)`,
          severity: 'error',
          comment: `${e.name}: ${e.why}`,
          from: { path: exact(e.file) },
          to: { path: exact(e.to), dependencyTypesNot: ['type-only'] },
        });
      }
    }
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle in a package (type-only imports count: they are coupling too). Break it by moving the shared piece to a file both import.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true, viaOnly: { pathNot: CIRCLE_EXCEPTION.through } },
    },
    {
      name: `no-circular (beyond the exception ${CIRCLE_EXCEPTION.name})`,
      severity: 'error',
      comment: 'A circle through the operations port that reaches a file outside the known one.',
      from: { path: CIRCLE_EXCEPTION.through },
      to: { circular: true, via: { pathNot: exact(CIRCLE_EXCEPTION.files) } },
    },
    ...floorRules(),
    {
      name: 'core-no-node-module',
      severity: 'error',
      comment:
        "@sluice/core runs on every fetch runtime (Workers, Deno, Bun): no static `node:` import; Node's modules come from process.getBuiltinModule where it exists",
      from: { path: CORE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-no-framework-or-client',
      severity: 'error',
      comment:
        '@sluice/core imports no framework, store client or other package beyond its own dependency (ipaddr.js) and its optional peers (luxon, @opentelemetry/api)',
      from: { path: CORE },
      to: {
        dependencyTypes: [
          'npm',
          'npm-dev',
          'npm-optional',
          'npm-peer',
          'npm-bundled',
          'npm-no-pkg',
          'npm-unknown',
          'unknown',
          'undetermined',
        ],
        pathNot: '(^|/)node_modules/(ipaddr\\.js|luxon|@types/luxon|@opentelemetry/api)/',
      },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(test|dist)/|\\.test\\.ts$' },
    // Where a package's own exports resolve (the workspace names map to sources in
    // tsconfig.json's paths).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types'] },
  },
};

// For scripts/test/import-rules.test.ts (each exception must still match an import). Not
// enumerable: dependency-cruiser refuses a configuration with properties of its own.
Object.defineProperty(module.exports, 'sluice', {
  value: { CORE, FLOORS, FLOOR_EXCEPTIONS, CIRCLE_EXCEPTION },
  enumerable: false,
});
