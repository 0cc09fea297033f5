/** @jest-config-loader ts-node */
// (Node 22+ would load this file by stripping types, which resolves imports without extensions as ESM
// does and fails on ./jest.config; ts-node loads it as Node 20 does.)
import type { Config } from 'jest';
import config from './jest.config';
import { ONCE_PER_CI } from './scripts/jest/tiers';

// The suite on Node 22, 24 and 26 in CI (.ci/run): everything `pnpm test` runs less what
// CI runs once, on Node 20 (ONCE_PER_CI in scripts/jest/tiers.ts, with the reasons).
type Project = Exclude<NonNullable<Config['projects']>[number], string>;

const majors: Config = {
  ...config,
  projects: (config.projects as Project[]).map((project) => ({
    ...project,
    testPathIgnorePatterns: ['/node_modules/', ...Object.keys(ONCE_PER_CI)],
  })),
};

export default majors;
