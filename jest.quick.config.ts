import type { Config } from 'jest';
import config from './jest.config';
import { FULL_ONLY, FULL_ONLY_PROJECTS } from './scripts/jest/tiers';

// `pnpm test:quick`: the inner loop (<= 60 s on a 2-core machine). The same projects as
// `pnpm test` (jest.config.ts) less what needs Redis, PostgreSQL, a browser, a runtime or a
// child process (scripts/jest/tiers.ts); quick-guard.cjs makes any of those fail here.
type Project = Exclude<NonNullable<Config['projects']>[number], string>;

const ignored = Object.keys(FULL_ONLY);
const quick: Config = {
  ...config,
  // perf: every quick test is CPU-bound in this process, so one worker per core
  maxWorkers: 2,
  projects: (config.projects as Project[])
    .filter((project) => !(String(project.displayName) in FULL_ONLY_PROJECTS))
    .map((project) => ({
      ...project,
      setupFiles: [
        ...((project.setupFiles as string[] | undefined) ?? []),
        `${__dirname}/scripts/jest/quick-guard.cjs`,
      ],
      testPathIgnorePatterns: ['/node_modules/', ...ignored],
    })),
};

export default quick;
