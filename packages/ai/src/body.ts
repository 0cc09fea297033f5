/**
 * The three request shapes `@sluice/ai` reads, told apart by their fields (docs/guide/ai.md):
 * OpenAI Chat Completions (`messages`, no top-level `system`), OpenAI Responses (`input` or
 * `instructions`), Anthropic Messages (`messages` with a top-level `system`, or
 * `anthropic_version`, or content blocks Anthropic has and OpenAI has not).
 */
export type BodyKind = 'chat' | 'responses' | 'anthropic' | 'unknown';

/** A request body as JSON parsed it: a plain object (anything else reads as empty). */
export type RequestBody = Record<string, unknown>;

/** The body as an object: `{}` for anything else (a string, an array, null). */
export function asBody(body: unknown): RequestBody {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as RequestBody)
    : {};
}

const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'document', 'thinking', 'image']);

/** Which API `body` is a request of. */
export function bodyKind(body: RequestBody): BodyKind {
  if (Array.isArray(body.messages)) {
    if (body.system !== undefined || body.anthropic_version !== undefined) return 'anthropic';
    if (body.max_completion_tokens !== undefined || body.stream_options !== undefined)
      return 'chat';
    for (const m of body.messages) {
      const content = (m as { content?: unknown } | null)?.content;
      if (!Array.isArray(content)) continue;
      for (const part of content) {
        const type = (part as { type?: unknown } | null)?.type;
        if (typeof type === 'string' && ANTHROPIC_BLOCKS.has(type)) return 'anthropic';
      }
    }
    return 'chat';
  }
  if (body.input !== undefined || body.instructions !== undefined) return 'responses';
  return 'unknown';
}

/** The body's `model`, or `undefined` when it has none (or not a string). */
export function modelOf(body: RequestBody): string | undefined {
  return typeof body.model === 'string' ? body.model : undefined;
}

/**
 * The largest declared output cap: the largest of `max_tokens`, `max_completion_tokens` and
 * `max_output_tokens` that is an integer >= 0 (a body with `max_tokens: 1` and
 * `max_completion_tokens: 10000` may produce 10,000 tokens); `undefined` when none is.
 */
export function outputCapOf(body: RequestBody): number | undefined {
  let cap: number | undefined;
  for (const v of [body.max_tokens, body.max_completion_tokens, body.max_output_tokens]) {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
      const n = Math.ceil(v);
      if (cap === undefined || n > cap) cap = n;
    }
  }
  return cap;
}

/** Whether the body asks for a streamed answer (`stream: true`). */
export function isStreamed(body: RequestBody): boolean {
  return body.stream === true;
}
