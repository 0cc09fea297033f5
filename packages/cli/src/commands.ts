import { LimitOperations, type Store } from '@sluice/core';
import type { OperationEntry } from '@sluice/core/store';
import {
  type CommandLine,
  type CommandName,
  type StoreKind,
  subjectOf,
  UsageError,
} from './args.js';

/** What a command prints: a human line (or lines) and the JSON value of `--json`. */
export interface Output {
  text: string;
  json: unknown;
}

const STORE_NAMES: Record<StoreKind, string> = {
  redis: 'Redis',
  postgres: 'PostgreSQL',
  sqlite: 'the SQLite file',
};

/**
 * The commands a store cannot answer, each with why and where the answer is. `top` on every
 * store: the CLI sees no process's counts (they are per process). Every other command acts
 * through `LimitOperations`, which each shared store (Redis, PostgreSQL, SQLite) answers.
 */
const UNANSWERED: Partial<Record<CommandName, (store: string) => string>> = {
  top: (store) =>
    'sluice top: the most-denied subjects are counted by each process, in its memory ' +
    `(Space-Saving, bounded), and never written to ${store}, so this command has nothing to ` +
    'aggregate. Read them in the app: `ops.top(10)` of its LimitOperations, or the ' +
    'OpenTelemetry gauge sluice.denials.top (per process, counts by rank, without ids).',
};

/**
 * Why `command` cannot be answered on the store `kind` (undefined: no store given), naming
 * the command; `undefined` when it can.
 */
export function unanswered(
  command: CommandLine['command'],
  kind: StoreKind | undefined,
): string | undefined {
  const why = UNANSWERED[command as CommandName];
  return why?.(kind === undefined ? 'any store' : STORE_NAMES[kind]);
}

/** Runs one command against the store's operations. */
export async function runCommand(line: CommandLine, store: Store): Promise<Output> {
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
      const until = inspection.blockedUntil;
      const blocked =
        until === null
          ? 'not blocked'
          : `blocked ${Number.isFinite(until) ? `until ${iso(until)}` : 'until removed'}`;
      const lines = [`${a} ${b}: ${blocked}`, ...inspection.entries.map((e) => `  ${describe(e)}`)];
      if (inspection.entries.length === 0) lines.push('  no entries apply');
      // JSON has no Infinity (a deny with no end): `blocked` says it, `blockedUntil` is null.
      const json = {
        ...inspection,
        blocked: until !== null,
        blockedUntil: until !== null && Number.isFinite(until) ? until : null,
      };
      return { text: lines.join('\n'), json };
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
