/**
 * `text` with the secret of `url` removed: the password of a Redis URL, whether it appears
 * raw or percent-decoded. The CLI passes
 * every line it prints through this, errors included.
 */
export function redact(text: string, url: string | undefined): string {
  if (url === undefined || url === '') return text;
  const secrets = new Set<string>();
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(url);
  if (match !== null) {
    const userinfo = match[1]!;
    const colon = userinfo.indexOf(':');
    // The password (`redis://:pw@`, `redis://user:pw@`), or the whole userinfo when it has
    // no colon (`redis://pw@` is read as a password by some clients).
    const parts = colon === -1 ? [userinfo] : [userinfo.slice(colon + 1), userinfo];
    for (const part of parts) {
      if (part.length === 0) continue;
      secrets.add(part);
      try {
        secrets.add(decodeURIComponent(part));
      } catch {
        // not percent-encoded text: the raw form is enough
      }
    }
  }
  // Longest first, so a secret that contains another is removed whole.
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) out = out.split(secret).join('***');
  }
  return out;
}

/** Where `url` points, for messages: `host:port`, never the user name or password. */
export function endpointOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return '(an unparsable URL)';
  }
}
