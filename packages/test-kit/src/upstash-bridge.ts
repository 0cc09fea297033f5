// A small server speaking Upstash Redis's REST protocol over a redis-server a test started
// (startRedis): what @sluice/redis's tests run `@upstash/redis` against. The hosted
// Upstash service is NOT this: it is a bridge with the protocol the client speaks, read
// from @upstash/redis's source (pkg/http.ts, pkg/pipeline.ts):
//   POST /            body: one command, a JSON array ["evalsha", sha, 1, "k", 5]
//   POST /pipeline    body: an array of commands; reply: [{ result } | { error }, ...]
//   POST /multi-exec  the same, run between MULTI and EXEC
//   Authorization: Bearer <token>  (401 { error } without it)
//   Upstash-Encoding: base64       bulk strings in results base64-encoded ("OK" as is)
// A single command's error is HTTP 400 { error }. Arguments may be JSON numbers (the client
// sends them so): written as their decimal text. It counts the HTTP requests it receives.
// A script's shebang flag `allow-key-locking` (@upstash/ratelimit's scripts carry it; the
// hosted service takes it, redis-server 7.0 rejects it) is dropped, and EVALSHA of the
// script's original SHA1 sent as the SHA1 of what redis-server was given.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A RESP reply as the bridge reads it. */
type Resp =
  | { type: 'simple'; value: string }
  | { type: 'error'; value: string }
  | { type: 'int'; value: number }
  | { type: 'bulk'; value: string | null }
  | { type: 'array'; value: Resp[] | null };

/** One connection to redis-server, replies matched to commands in order (RESP2). */
class RespConnection {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  readonly #waiting: { resolve(reply: Resp): void; reject(error: Error): void }[] = [];

  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (chunk) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      for (;;) {
        const parsed = parse(this.#buffer, 0);
        if (parsed === undefined) break;
        this.#buffer = this.#buffer.subarray(parsed.end);
        this.#waiting.shift()?.resolve(parsed.reply);
      }
    });
    const fail = (error: Error) => {
      for (const w of this.#waiting.splice(0)) w.reject(error);
    };
    this.#socket.on('error', fail);
    this.#socket.on('close', () => {
      this.closed = true;
      fail(new Error('redis-server connection closed'));
    });
  }

  /** Whether the connection to redis-server is gone (the bridge opens a new one). */
  closed = false;

  /** Sends `commands` in one write; resolves with their replies, in order. */
  send(commands: string[][]): Promise<Resp[]> {
    let out = '';
    const replies: Promise<Resp>[] = [];
    for (const command of commands) {
      out += `*${command.length}\r\n`;
      for (const arg of command) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
      replies.push(
        new Promise((resolve, reject) => {
          this.#waiting.push({ resolve, reject });
        }),
      );
    }
    this.#socket.write(out);
    return Promise.all(replies);
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** The RESP2 reply at `at` in `buffer`, or undefined when it is not all there yet. */
function parse(buffer: Buffer, at: number): { reply: Resp; end: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd === -1) return undefined;
  const kind = String.fromCharCode(buffer[at]!);
  const line = buffer.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (kind) {
    case '+':
      return { reply: { type: 'simple', value: line }, end: next };
    case '-':
      return { reply: { type: 'error', value: line }, end: next };
    case ':':
      return { reply: { type: 'int', value: Number(line) }, end: next };
    case '$': {
      const length = Number(line);
      if (length === -1) return { reply: { type: 'bulk', value: null }, end: next };
      if (buffer.length < next + length + 2) return undefined;
      const value = buffer.toString('utf8', next, next + length);
      return { reply: { type: 'bulk', value }, end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count === -1) return { reply: { type: 'array', value: null }, end: next };
      const items: Resp[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, end);
        if (item === undefined) return undefined;
        items.push(item.reply);
        end = item.end;
      }
      return { reply: { type: 'array', value: items }, end };
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(kind)}`);
  }
}

/** A reply as Upstash's JSON has it: strings (base64 when asked), numbers, arrays, null. */
function toJson(reply: Resp, base64: boolean): unknown {
  switch (reply.type) {
    case 'simple':
      return reply.value;
    case 'int':
      return reply.value;
    case 'bulk':
      if (reply.value === null) return null;
      return base64 ? Buffer.from(reply.value, 'utf8').toString('base64') : reply.value;
    case 'array':
      return reply.value === null ? null : reply.value.map((r) => toJson(r, base64));
    case 'error':
      return reply.value;
  }
}

function entry(reply: Resp, base64: boolean): { result: unknown } | { error: string } {
  return reply.type === 'error' ? { error: reply.value } : { result: toJson(reply, base64) };
}

const LOCKING = /^#!lua([^\n]*?) flags=allow-key-locking/;
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * `command` as redis-server 7.0 takes it: a script's `allow-key-locking` flag dropped (its
 * original SHA1 remembered in `shas`, to the SHA1 of the script sent), an EVALSHA of an
 * original SHA1 sent with the other.
 */
function translate(command: string[], shas: Map<string, string>): string[] {
  const name = command[0]!.toUpperCase();
  const at =
    name === 'EVAL' || name === 'EVAL_RO'
      ? 1
      : name === 'SCRIPT' && command[1]?.toUpperCase() === 'LOAD'
        ? 2
        : -1;
  if (at !== -1 && LOCKING.test(command[at] ?? '')) {
    const script = command[at]!.replace(LOCKING, '#!lua$1');
    shas.set(sha1(command[at]!), sha1(script));
    return command.map((arg, i) => (i === at ? script : arg));
  }
  if ((name === 'EVALSHA' || name === 'EVALSHA_RO') && shas.has(command[1]?.toLowerCase() ?? ''))
    return command.map((arg, i) => (i === 1 ? shas.get(arg.toLowerCase())! : arg));
  return command;
}

/** A command as the client sends it: each argument as redis-server takes it (text). */
function asCommand(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const command: string[] = [];
  for (const arg of value) {
    if (typeof arg === 'string') command.push(arg);
    else if (typeof arg === 'number' || typeof arg === 'boolean') command.push(String(arg));
    else return undefined;
  }
  return command;
}

/** A running bridge. */
export interface UpstashBridge {
  /** The base URL to give `new Redis({ url, token })`. */
  url: string;
  token: string;
  /** HTTP requests received so far, by path (`/`, `/pipeline`, `/multi-exec`, other). */
  readonly requests: { total: number; single: number; pipeline: number; multiExec: number };
  /** Commands received so far (every command of a pipeline counted). */
  readonly commands: number;
  /** Sets the request counters back to 0. */
  resetCounts(): void;
  close(): Promise<void>;
}

/**
 * Starts an Upstash-compatible REST bridge on a free port of 127.0.0.1 in front of the
 * redis-server on `redisPort` (one RESP connection, replies matched in order, so a
 * pipeline's commands run back to back and a multi-exec's atomically).
 *
 * @param token - the Bearer token it accepts. Default a random one.
 */
export async function startUpstashBridge(
  redisPort: number,
  token = `tok-${Math.random().toString(36).slice(2)}`,
): Promise<UpstashBridge> {
  // A connection that closed (redis-server killed and restarted) is replaced at the next
  // request, as the hosted service reconnects: the requests in flight when it closed fail.
  let connection = new RespConnection(redisPort);
  const shas = new Map<string, string>();
  const redis = {
    send(commands: string[][]): Promise<Resp[]> {
      if (connection.closed) connection = new RespConnection(redisPort);
      return connection.send(commands.map((c) => translate(c, shas)));
    },
    close: () => connection.close(),
  };
  const requests = { total: 0, single: 0, pipeline: 0, multiExec: 0 };
  let commands = 0;

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    requests.total++;
    if (req.headers.authorization !== `Bearer ${token}`) {
      return answer(res, 401, { error: 'Unauthorized' });
    }
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' });
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return answer(res, 400, { error: 'ERR failed to parse command' });
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    if (path === '/') {
      requests.single++;
      const command = asCommand(body);
      if (command === undefined) return answer(res, 400, { error: 'ERR failed to parse command' });
      commands++;
      const [reply] = await redis.send([command]);
      const result = entry(reply!, base64);
      return answer(res, 'error' in result ? 400 : 200, result);
    }
    if (path === '/pipeline' || path === '/multi-exec') {
      const multi = path === '/multi-exec';
      if (multi) requests.multiExec++;
      else requests.pipeline++;
      const list = Array.isArray(body) ? body.map(asCommand) : [];
      if (list.length === 0 || list.some((c) => c === undefined)) {
        return answer(res, 400, { error: 'ERR failed to parse pipeline request' });
      }
      commands += list.length;
      const batch = list as string[][];
      if (!multi) {
        const replies = await redis.send(batch);
        return answer(
          res,
          200,
          replies.map((r) => entry(r, base64)),
        );
      }
      const replies = await redis.send([['MULTI'], ...batch, ['EXEC']]);
      const exec = replies[replies.length - 1]!;
      if (exec.type !== 'array' || exec.value === null) {
        const failed = replies.find((r) => r.type === 'error') ?? exec;
        return answer(res, 400, { error: String(failed.value ?? 'EXECABORT') });
      }
      return answer(
        res,
        200,
        exec.value.map((r) => entry(r, base64)),
      );
    }
    return answer(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) answer(res, 500, { error: String(error) });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    get commands() {
      return commands;
    },
    resetCounts() {
      requests.total = requests.single = requests.pipeline = requests.multiExec = 0;
      commands = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        redis.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
