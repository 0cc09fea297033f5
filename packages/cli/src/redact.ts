/**
 * `text` with the secrets of `urls` removed: the password of each Redis or PostgreSQL URL
 * (the userinfo's, and a `password=` / `sslpassword=` query parameter's), raw or
 * percent-decoded, replaced by `***`. The CLI passes every line it prints through this,
 * errors included, with every URL it was given (flags and environment alike).
 */
export function redact(text: string, ...urls: readonly (string | undefined)[]): string {
  const secrets = new Set<string>();
  for (const url of urls) {
    if (url !== undefined && url !== '') for (const s of secretsOf(url)) secrets.add(s);
  }
  // Longest first, so a secret that contains another is removed whole.
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join('***');
  }
  return out;
}

/** The secret parts of one URL, each raw and percent-decoded. */
function secretsOf(url: string): string[] {
  const parts: string[] = [];
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url);
  if (match !== null) {
    const userinfo = match[1]!;
    const colon = userinfo.indexOf(':');
    // The password (`redis://:pw@`, `postgres://user:pw@`), or the whole userinfo when it
    // has no colon (`redis://pw@` is read as a password by some clients).
    parts.push(...(colon === -1 ? [userinfo] : [userinfo.slice(colon + 1), userinfo]));
  }
  // pg reads `?password=` (and `sslpassword=`, a client key's) from the query too.
  for (const m of url.matchAll(/[?&](?:ssl)?password=([^&#]*)/gi)) parts.push(m[1]!);
  const out: string[] = [];
  for (const part of parts) {
    if (part.length === 0) continue;
    out.push(part);
    for (const decode of [
      decodeURIComponent,
      (t: string) => decodeURIComponent(t.replace(/\+/g, ' ')),
    ]) {
      try {
        const decoded = decode(part);
        if (decoded.length > 0) out.push(decoded);
      } catch {
        // not percent-encoded text: the raw form is enough
      }
    }
  }
  return out;
}

/**
 * Where `url` points, for messages: `host:port` (`defaultPort` when the URL has none), never
 * the user name or password.
 */
export function endpointOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || String(defaultPort)}`;
  } catch {
    return '(an unparsable URL)';
  }
}
