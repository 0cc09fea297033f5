/**
 * Loads a worker's store module: `require` where the worker runs as CommonJS (the tests'
 * ts-worker.cjs, on tsx's CommonJS hook, which leaves a dynamic `import()` to Node's ES
 * loader, where a `.ts` file has no loader), `import()` where it runs as an ES module (the
 * bench's workers, on tsx's ES hook). One module instance either way: the store the module
 * builds and the algorithms the worker passes it come from the same copy of the core.
 */
export function loadWorkerModule(path: string): Promise<unknown> {
  return typeof require === 'function' ? Promise.resolve(require(path)) : import(path);
}
