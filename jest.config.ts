import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from 'jest';

/**
 * The transform of every project's TypeScript: SWC strips the types, as ts-jest did with
 * `isolatedModules` (no type check here: `pnpm lint` type-checks the tests with tsc). `dir`'s
 * tsconfig.test.json says which decorators its code is written for: TypeScript's legacy ones
 * with metadata (`experimentalDecorators`, NestJS) or the standard ones (`2023-11`, the
 * version TypeScript 5 emits).
 * perf: a clone's first `pnpm test:quick` took 94 s with ts-jest, 49 s with SWC (40 s warm).
 */
function swc(dir: string): [string, Record<string, unknown>] {
  const tsconfig = JSON.parse(readFileSync(join(__dirname, dir, 'tsconfig.test.json'), 'utf8'));
  const legacy = tsconfig.compilerOptions?.experimentalDecorators === true;
  return [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        target: 'es2022',
        transform: legacy
          ? { legacyDecorator: true, decoratorMetadata: true }
          : { decoratorVersion: '2023-11' },
      },
      module: { type: 'commonjs' },
      sourceMaps: 'inline',
    },
  ];
}

// One jest project per package. Tests import sibling packages (and the private
// @sluice/test-kit, what they share) by name; the moduleNameMapper
// points those names at the TypeScript sources so `pnpm test` needs no prior build.
const packages = [
  'core',
  'redis',
  'koa',
  'fastify',
  'express',
  'client',
  'nestjs',
  'postgres',
  'sqlite',
  'fetch',
  'hono',
  'graphql',
  'ws',
  'trpc',
  'ai',
  'cloudflare',
  'cli',
];

const moduleNameMapper = {
  '^@sluice/core/http$': '<rootDir>/../core/src/http/index.ts',
  '^@sluice/core/store$': '<rootDir>/../core/src/store-api.ts',
  '^@sluice/core/protocol$': '<rootDir>/../core/src/protocol-api.ts',
  '^@sluice/core/duration$': '<rootDir>/../core/src/duration-api.ts',
  '^@sluice/core/shared$': '<rootDir>/../core/src/shared-api.ts',
  '^@sluice/([a-z-]+)$': '<rootDir>/../$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

// The Redis suite runs on ioredis 6 (packages/redis's `ioredis` devDependency); with
// SLUICE_IOREDIS=5 it runs on ioredis 5 (the `ioredis5` alias, `npm:ioredis@5`) instead: CI
// runs it both ways, since @sluice/redis peers on `^5 || ^6`.
const ioredis5 = process.env.SLUICE_IOREDIS === '5' ? { '^ioredis$': 'ioredis5' } : {};

// A test's default budget: jest's 5 s is too tight for an app's first requests on a loaded
// 2-core machine (CI runs the whole suite there); tests that need more say so.
const testTimeout = 15_000;

// The AI SDK 7 (the `ai-7` alias in packages/ai, `npm:ai@7`, Node 22+) and the packages under it
// ship ES modules only, which jest's CommonJS runtime cannot require before Node 24.9: the ai
// project compiles them to CommonJS (TypeScript's transpile, no type checks), every other
// node_modules file is left as it is.
const esmOnly = '(ai@7|@ai-sdk\\+(gateway@4|provider-utils@5|provider@4)|@workflow\\+serde@)';
const esmOnlyProject = {
  // zod's locales come by file name: `zod/v4/locales/en.js` is its ES build, `.cjs` its CommonJS.
  moduleNameMapper: { '^zod/v4/locales/([a-zA-Z-]+)\\.js$': 'zod/v4/locales/$1.cjs' },
  transformIgnorePatterns: [`^(?!.*/node_modules/\\.pnpm/${esmOnly}[^/]*/).*/node_modules/`],
  transform: {
    [`/node_modules/\\.pnpm/${esmOnly}[^/]*/.+\\.js$`]: [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true },
        diagnostics: false,
      },
    ],
  },
};

const config: Config = {
  testTimeout,
  // perf: two files at a time on the 2-core machines the suite is sized for (jest's default
  // there is cores - 1): many files wait on servers and worker processes. Every file starts
  // its own servers on free ports, names its own keys and databases, and times rules on
  // injected clocks, so two side by side do not meet (a clean-clone run at load 8: 3,009
  // passed, none failed from the other file; 834 s against 2,177 s one at a time).
  maxWorkers: 2,
  // jest's own order (by file size on a fresh clone). scripts/jest/sequencer.cjs, which
  // starts the longest files first, is not set: it started the process races beside the
  // browser test and `next build`, where their real-time bounds failed (CONTRIBUTING.md).
  projects: packages.map((name) => ({
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testEnvironment: 'node',
    testTimeout,
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    moduleNameMapper:
      name === 'redis'
        ? { ...ioredis5, ...moduleNameMapper }
        : name === 'ai'
          ? { ...esmOnlyProject.moduleNameMapper, ...moduleNameMapper }
          : moduleNameMapper,
    transform: {
      '^.+\\.ts$': swc(`packages/${name}`),
      ...(name === 'ai' ? esmOnlyProject.transform : {}),
    },
    ...(name === 'ai' ? { transformIgnorePatterns: esmOnlyProject.transformIgnorePatterns } : {}),
  })),
};

/**
 * A jest project outside packages/: `dir` (from the root), its tests in `testMatch`, the
 * packages mapped to their sources as above, compiled with `dir`'s tsconfig.test.json.
 */
function project(displayName: string, dir: string, testMatch: string[]) {
  const root = `<rootDir>/${dir.replace(/[^/]+/g, '..')}`;
  return {
    displayName,
    rootDir: `<rootDir>/${dir}`,
    testEnvironment: 'node',
    testTimeout,
    testMatch,
    moduleNameMapper: {
      ...moduleNameMapper,
      '^@sluice/core/http$': `${root}/packages/core/src/http/index.ts`,
      '^@sluice/core/store$': `${root}/packages/core/src/store-api.ts`,
      '^@sluice/core/protocol$': `${root}/packages/core/src/protocol-api.ts`,
      '^@sluice/core/duration$': `${root}/packages/core/src/duration-api.ts`,
      '^@sluice/core/shared$': `${root}/packages/core/src/shared-api.ts`,
      '^@sluice/([a-z-]+)$': `${root}/packages/$1/src/index.ts`,
    },
    transform: {
      '^.+\\.ts$': swc(dir),
    },
  };
}

config.projects!.push(
  // The runnable demos (examples/): their test starts the three apps and drives them, and
  // starts every `pnpm demo*` line of the README from source.
  project('examples', 'examples/demo', ['<rootDir>/test/**/*.test.ts']),
  // The documentation site (docs/): its snippets compile and run, its plots and options
  // reference come from the code, and every page opens in headless Chromium.
  project('docs', 'docs', ['<rootDir>/test/**/*.test.ts', '<rootDir>/snippets/**/*.test.ts']),
  // The fresh machine: scripts/provision.mjs (what `pnpm test` installs first) and the
  // test-kit fixtures' errors when a binary is missing.
  project('scripts', 'scripts', ['<rootDir>/test/**/*.test.ts']),
  // The Next.js example (examples/next): one `next build` and `next start` (CPU-heavy:
  // .ci/run runs it once, on this machine's Node).
  project('next', 'examples/next', ['<rootDir>/test/**/*.test.ts']),
);

// The benchmarks (bench/): the committed pages are what the committed results render.
config.projects!.push({
  displayName: 'bench',
  rootDir: '<rootDir>/bench',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': swc('bench'),
  },
});

export default config;
