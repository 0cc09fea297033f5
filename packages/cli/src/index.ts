/**
 * `@sluice/cli`: the `sluice` command, for operators acting on every process that shares a
 * Redis, a PostgreSQL database or an SQLite file at once: `ban`, `unban`, `allow`, `deny`,
 * `override`, `remove`, `list`, `inspect`, `top`. `runCli` runs it from code (the bin is a one-line wrapper).
 *
 * @packageDocumentation
 */
export { type CliIo, EXIT_CODES, runCli } from './run.js';
