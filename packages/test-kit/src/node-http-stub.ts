// workerd (without nodejs_compat) has no node:http: the table's one use of it, a client that
// drops its connection mid-request, cannot run there. bundleTableForWorkerd (bundles.ts)
// aliases node:http to this for the workerd table runners.
export function request(): never {
  throw new Error(
    'node:http is not available on workerd: this row needs a real connection to drop',
  );
}
