/**
 * Finds a call's usage in its answer as it passes (docs/guide/ai.md, "Streams"): the usage
 * of OpenAI's last Chat Completions chunk (with `stream_options.include_usage`), of
 * Responses' `response.completed` event, Anthropic's `message_start` usage updated by its
 * `message_delta`, or a JSON body's `usage`.
 */
export class UsageScanner {
  readonly #sse: boolean;
  readonly #decoder = new TextDecoder();
  #partial = '';
  /** A JSON body, kept whole (at most {@link MAX_JSON} characters). */
  #json = '';
  #usage: Record<string, unknown> | undefined;
  #anthropic: Record<string, unknown> | undefined;

  constructor(contentType: string | null) {
    this.#sse = contentType?.toLowerCase().includes('text/event-stream') === true;
  }

  /** Reads one chunk of the body (the bytes are not changed: they are only decoded here). */
  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    if (!this.#sse) {
      if (this.#json.length + text.length <= MAX_JSON) this.#json += text;
      else this.#json = ' '; // too large to be an API answer's JSON: no usage read
      return;
    }
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    if (this.#partial.length > MAX_LINE) this.#partial = '';
    for (const line of lines) this.#line(line);
  }

  /** The usage found, once the body ended; `undefined` when there was none. */
  end(): Record<string, unknown> | undefined {
    if (!this.#sse) {
      this.#json += this.#decoder.decode();
      const body = parse(this.#json);
      const usage = (body as { usage?: unknown } | undefined)?.usage;
      return isObject(usage) ? usage : undefined;
    }
    this.#line(this.#partial + this.#decoder.decode());
    return this.#usage;
  }

  #line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('data:') || !line.includes('"usage"')) return;
    const event = parse(line.slice(5).trim()) as Record<string, unknown> | undefined;
    if (!isObject(event)) return;
    switch (event.type) {
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const usage = (event.response as { usage?: unknown } | undefined)?.usage;
        if (isObject(usage)) this.#usage = usage;
        return;
      }
      case 'message_start': {
        const usage = (event.message as { usage?: unknown } | undefined)?.usage;
        if (isObject(usage)) this.#usage = this.#anthropic = { ...usage };
        return;
      }
      case 'message_delta': {
        // Anthropic's delta counts are cumulative: they replace message_start's.
        if (isObject(event.usage))
          this.#usage = this.#anthropic = { ...this.#anthropic, ...defined(event.usage) };
        return;
      }
      default:
        if (isObject(event.usage)) this.#usage = event.usage;
    }
  }
}

const MAX_JSON = 16 * 1024 * 1024;
const MAX_LINE = 4 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in o) if (o[k] !== null && o[k] !== undefined) out[k] = o[k];
  return out;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
