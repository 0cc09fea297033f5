import { LimitOperations, type OperationEntry } from '@sluice/core';
import type { RedisStore } from '@sluice/redis';
import { type CommandLine, subjectOf, UsageError } from './args.js';

/** What a command prints: a human line (or lines) and the JSON value of `--json`. */
export interface Output {
  text: string;
  json: unknown;
}

/** `top`'s answer: the CLI sees no process's counts (`top` is per process). */
export const TOP_EXPLAINED =
  'sluice top: the most-denied subjects are counted by each process, in its memory ' +
  '(Space-Saving, bounded), and never written to Redis, so this command has nothing to ' +
  'aggregate. Read them in the app: `ops.top(10)` of its LimitOperations, or the ' +
  'OpenTelemetry gauge sluice.denials.top (per process, counts by rank, without ids).';

/** Runs one command against the store's operations. */
export async function runCommand(line: CommandLine, store: RedisStore): Promise<Output> {
  const ops = new LimitOperations({ store, prefix: line.prefix });
  const [a = '', b = '', c = ''] = line.positionals;
  const entryOut = (verb: string, entry: OperationEntry): Output => ({
    text: `${verb} ${describe(entry)}`,
    json: entry,
  });
  switch (line.command) {
    case 'ban':
      return entryOut(
        'banned',
        await ops.ban(subjectOf(a, b), { for: duration(line.for, 'ban'), reason: line.reason }),
      );
    case 'unban':
      await ops.unban(subjectOf(a, b));
      return { text: `unbanned ${a} ${b}`, json: { unbanned: subjectOf(a, b) } };
    case 'allow':
    case 'deny': {
      const options = {
        for: line.for === undefined ? undefined : duration(line.for, line.command),
        reason: line.reason,
      };
      const entry = await ops[line.command](subjectOf(a, b), options);
      return entryOut(line.command === 'allow' ? 'allowed' : 'denied', entry);
    }
    case 'override':
      return entryOut(
        'overridden',
        await ops.override(subjectOf(a, b), c, {
          for: duration(line.for, 'override'),
          name: line.name,
          reason: line.reason,
        }),
      );
    case 'remove':
      await ops.remove(a);
      return { text: `removed ${a}`, json: { removed: a } };
    case 'list': {
      const entries = await ops.list();
      const text = entries.length === 0 ? 'no entries' : entries.map(describe).join('\n');
      return { text, json: entries };
    }
    case 'inspect': {
      const inspection = await ops.inspect(subjectOf(a, b));
      const lines = [
        `${a} ${b}: ${inspection.blockedUntil === null ? 'not blocked' : `blocked until ${iso(inspection.blockedUntil)}`}`,
        ...inspection.entries.map((e) => `  ${describe(e)}`),
      ];
      if (inspection.entries.length === 0) lines.push('  no entries apply');
      return { text: lines.join('\n'), json: inspection };
    }
    default:
      throw new Error(`unhandled command ${String(line.command)}`);
  }
}

/** `--for` as LimitOperations takes it: a number of ms when all digits, else the text. */
function duration(text: string | undefined, command: string): string | number {
  // The core refuses a missing one too; said here in the CLI's words.
  if (text === undefined) throw new UsageError(`${command} needs --for <duration>`);
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** One entry on one line: `ban:ip:1.2.3.4 until 2026-…Z (reason: abuse)` (the id names the kind). */
export function describe(entry: OperationEntry): string {
  const parts = [entry.id];
  if (entry.limit !== undefined) parts.push(entry.limit);
  if (entry.name !== undefined) parts.push(`on ${entry.name}`);
  parts.push(entry.until === null ? 'until removed' : `until ${iso(entry.until)}`);
  if (entry.reason !== undefined) parts.push(`(reason: ${entry.reason})`);
  return parts.join(' ');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
