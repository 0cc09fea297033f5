/**
 * Synchronous loading of an optional or heavy package where the runtime has Node's module
 * loader (Node, Bun, Deno: found through `process.getBuiltinModule`, never a static `node:`
 * import, so the core still runs on Workers and Vercel's edge runtime, where this finds
 * nothing). Used for what only some applications need: `@opentelemetry/api` (`metrics:
 * true`) and luxon (calendar quotas), so neither is in a bundle that does not use it.
 */

/** This module's URL in the ESM build (tsup's `define` replaces it by `import.meta.url`); undefined in CommonJS and in tests. */
declare const __sluiceModuleUrl: string | undefined;

/** What the loader uses of the runtime: Node's `process` (also Bun's and Deno's). */
interface NodeLikeProcess {
  argv?: string[];
  cwd?(): string;
  getBuiltinModule?(id: string): unknown;
}

/**
 * `id` loaded with this module's `require` (CommonJS), else resolved from this file, then
 * from the application's entry script, then from the working directory; `undefined` when
 * none finds it (or `accept` refuses what was found), and where the runtime has no Node
 * module loader. Never throws.
 *
 * @param id - the package, e.g. `'luxon'`.
 * @param accept - whether a loaded module is the one wanted (checks its shape).
 */
export function nodeRequire<T>(id: string, accept: (module: unknown) => boolean): T | undefined {
  const attempts: (() => unknown)[] = [];
  // perf: `module.require`, not a free `require`, which makes esbuild add its require shim
  // (about 150 B gzip) to every ESM bundle, Workers' included.
  const cjs =
    typeof module === 'object' ? (module as { require?: (id: string) => unknown }) : undefined;
  if (typeof cjs?.require === 'function') attempts.push(() => cjs.require!(id));
  const proc = (globalThis as { process?: NodeLikeProcess }).process;
  // The bare name: a `node:` string would look like an import to a bundle check.
  const nodeModule = proc?.getBuiltinModule?.('module') as
    | { createRequire?: (base: string) => (id: string) => unknown }
    | undefined;
  const createRequire = nodeModule?.createRequire;
  if (typeof createRequire === 'function') {
    const bases = [
      typeof __filename === 'string' ? __filename : undefined,
      typeof __sluiceModuleUrl === 'string' ? __sluiceModuleUrl : undefined,
      proc?.argv?.[1],
      typeof proc?.cwd === 'function' ? `${proc.cwd()}/index.js` : undefined,
    ];
    for (const base of bases) if (base) attempts.push(() => createRequire(base)(id));
  }
  for (const attempt of attempts) {
    try {
      const module = attempt();
      if (accept(module)) return module as T;
    } catch {
      // not installed where this base looks: try the next one
    }
  }
  return undefined;
}
