#!/usr/bin/env node
// The `sluice` command: runCli with the process's arguments; its exit code is the process's.
import { runCli } from './run.js';

// exit() rather than exitCode: nothing the command opened may keep the process alive.
process.exit(await runCli(process.argv.slice(2)));
