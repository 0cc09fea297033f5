import type { Config } from 'jest';

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
  'graphql',
  'ws',
  'trpc',
];

const moduleNameMapper = {
  '^@sluice/core/http$': '<rootDir>/../core/src/http/index.ts',
  '^@sluice/core/store$': '<rootDir>/../core/src/store-api.ts',
  '^@sluice/(core|redis|express|fastify|koa|client|nestjs|test-kit|graphql|ws|trpc)$':
    '<rootDir>/../$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

// The Redis suite runs on ioredis 6 (packages/redis's `ioredis` devDependency); with
// SLUICE_IOREDIS=5 it runs on ioredis 5 (the `ioredis5` alias, `npm:ioredis@5`) instead: CI
// runs it both ways, since @sluice/redis peers on `^5 || ^6`.
const ioredis5 = process.env.SLUICE_IOREDIS === '5' ? { '^ioredis$': 'ioredis5' } : {};

const config: Config = {
  projects: packages.map((name) => ({
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    moduleNameMapper: name === 'redis' ? { ...ioredis5, ...moduleNameMapper } : moduleNameMapper,
    transform: {
      '^.+\\.ts$': [
        'ts-jest',
        { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false } },
      ],
    },
  })),
};

// The runnable demo (examples/demo): its test starts the three apps and drives them.
config.projects!.push({
  displayName: 'examples',
  rootDir: '<rootDir>/examples/demo',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  moduleNameMapper: {
    ...moduleNameMapper,
    '^@sluice/core/http$': '<rootDir>/../../packages/core/src/http/index.ts',
    '^@sluice/core/store$': '<rootDir>/../../packages/core/src/store-api.ts',
    '^@sluice/(core|redis|express|fastify|koa|client|nestjs|test-kit|graphql|ws|trpc)$':
      '<rootDir>/../../packages/$1/src/index.ts',
  },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false } },
    ],
  },
});

// The documentation site (docs/): its snippets compile and run, its plots and options
// reference come from the code, and every page opens in headless Chromium.
config.projects!.push({
  displayName: 'docs',
  rootDir: '<rootDir>/docs',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/snippets/**/*.test.ts'],
  moduleNameMapper: {
    ...moduleNameMapper,
    '^@sluice/core/http$': '<rootDir>/../packages/core/src/http/index.ts',
    '^@sluice/core/store$': '<rootDir>/../packages/core/src/store-api.ts',
    '^@sluice/(core|redis|express|fastify|koa|client|nestjs|test-kit|graphql|ws|trpc)$':
      '<rootDir>/../packages/$1/src/index.ts',
  },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false } },
    ],
  },
});

export default config;
