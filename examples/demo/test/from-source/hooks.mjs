// The resolve hook of register.mjs: a sluice package resolved to its build fails the import.
const BUILD = /\/packages\/[^/]+\/dist\//;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (BUILD.test(resolved.url)) {
    throw new Error(`${specifier} resolved to a build (${resolved.url}), not to the sources`);
  }
  return resolved;
}
