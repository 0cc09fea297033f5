/** The origin and path of a request, or `undefined` when its URL cannot be read. */
export function targetOf(input: unknown): { origin: string; route: string } | undefined {
  let href: string | undefined;
  if (typeof input === 'string') href = input;
  else if (input instanceof URL) href = input.href;
  else if (input !== null && typeof input === 'object' && 'url' in input) {
    const url = (input as { url: unknown }).url;
    if (typeof url === 'string') href = url;
  }
  if (href === undefined) return undefined;
  try {
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    const url = new URL(href, base);
    return { origin: url.origin, route: routeKey(url.pathname) };
  } catch {
    return undefined;
  }
}

/**
 * The route a path belongs to, as far as a client can guess (draft-11 §7.1 lets clients judge
 * a request by its similarity to earlier ones): segments that look like ids (numbers, UUIDs,
 * long hex or token-like strings) become `:id`, so `/items/1` and `/items/2` share what the
 * client learns.
 */
export function routeKey(pathname: string): string {
  return pathname
    .split('/')
    .map((s) =>
      /^\d+$/.test(s) ||
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) ||
      /^[0-9a-f]{16,}$/i.test(s) ||
      (s.length >= 20 && /\d/.test(s) && /^[\w-]+$/.test(s))
        ? ':id'
        : s,
    )
    .join('/');
}

/**
 * Who is calling, as far as quotas go: servers keep one quota per credential (GitHub per
 * token, the sluice demo per bearer user, Anthropic per `x-api-key`), so each
 * `Authorization` / `x-api-key` value is paced apart. Kept as a short hash: no credential
 * stays in the client's memory.
 */
export function credentialsOf(input: unknown, init: RequestInit | undefined): string {
  let headers: Headers | undefined;
  try {
    if (init?.headers !== undefined) headers = new Headers(init.headers);
    else if (typeof Request !== 'undefined' && input instanceof Request) headers = input.headers;
  } catch {
    return '';
  }
  const auth = headers?.get('authorization');
  const apiKey = headers?.get('x-api-key');
  if (headers === undefined || (auth == null && apiKey == null)) return '';
  const value = `${auth ?? ''}\u0000${apiKey ?? ''}`;
  // FNV-1a, 32 bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  return ` ${(h >>> 0).toString(36)}`;
}

/** The signal of a call: `init.signal`, else the `Request`'s. */
export function signalOf(input: unknown, init: RequestInit | undefined): AbortSignal | undefined {
  if (init?.signal) return init.signal;
  const s = (input as { signal?: unknown } | null)?.signal;
  return typeof AbortSignal !== 'undefined' && s instanceof AbortSignal ? s : undefined;
}

/** Whether a call can be sent twice: its body is not a one-shot stream. */
export function replayable(init: RequestInit | undefined): boolean {
  const body = init?.body;
  if (
    body !== undefined &&
    body !== null &&
    typeof (body as ReadableStream).getReader === 'function'
  ) {
    return false;
  }
  return true;
}

/** The arguments of one attempt: a `Request` given as input is cloned while retries remain. */
export function attemptArgs(input: unknown, last: boolean): unknown {
  if (!last && typeof Request !== 'undefined' && input instanceof Request) return input.clone();
  return input;
}

/**
 * The tokens `estimate` gives a call, from a copy of it as a `Request` (a stream body is not
 * copied: it can be read once). Rejects when `estimate` throws or gives no finite number >= 0.
 */
export async function estimateTokens(
  estimate: (request: Request) => number | Promise<number>,
  input: unknown,
  init: RequestInit | undefined,
): Promise<number> {
  const source = input instanceof Request ? input.clone() : (input as string | URL);
  const copy = init === undefined || replayable(init) ? init : { ...init, body: undefined };
  const value: unknown = await estimate(new Request(source, copy));
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const kind =
      typeof value === 'number' ? `the number ${value}` : `a value of type ${typeof value}`;
    throw new TypeError(
      `sluice: pacedFetch's "estimate" returned ${kind}; expected a finite number of tokens >= 0`,
    );
  }
  return value;
}
