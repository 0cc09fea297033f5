import type { SqliteDatabase } from '../src/index.js';

/** `node:sqlite`'s `DatabaseSync` when this Node has it with user functions (22.13+), else undefined. */
export function nodeSqlite():
  | (new (
      path: string,
      options?: { readOnly?: boolean },
    ) => SqliteDatabase & { close(): void })
  | undefined {
  // getBuiltinModule: node:sqlite exists only under its `node:` name, which jest's resolver
  // may not know.
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const sqlite = get?.('node:sqlite') as { DatabaseSync?: { prototype: { function?: unknown } } };
  if (typeof sqlite?.DatabaseSync?.prototype.function !== 'function') return undefined;
  return sqlite.DatabaseSync as never;
}
