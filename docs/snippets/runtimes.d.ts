// What Bun's and Deno's own type definitions (the `bun-types` package, Deno's built-in lib)
// declare for the globals the pages call (shortened): `Bun.serve` and `Deno.serve`.

interface BunServerWebSocket<T = undefined> {
  readonly data: T;
  readonly remoteAddress: string;
  send(message: string | Uint8Array): number;
  close(code?: number, reason?: string): void;
  pause(): void;
  resume(): void;
}

interface BunServer {
  upgrade<T = undefined>(req: Request, options?: { data?: T }): boolean;
  requestIP(req: Request): { address: string; family: string; port: number } | null;
}

interface BunWebSocketHandler<T> {
  message(ws: BunServerWebSocket<T>, message: string | Uint8Array): unknown;
  open?(ws: BunServerWebSocket<T>): unknown;
  close?(ws: BunServerWebSocket<T>, code: number, reason: string): unknown;
}

declare const Bun: {
  serve<T = undefined>(options: {
    fetch(req: Request, server: BunServer): Response | undefined | Promise<Response | undefined>;
    websocket?: BunWebSocketHandler<T>;
    port?: number;
  }): BunServer;
};

declare const Deno: {
  serve(
    handler: (
      req: Request,
      info: { remoteAddr: { hostname: string; port: number } },
    ) => Response | Promise<Response>,
  ): unknown;
};

declare module 'bun' {
  export type ServerWebSocket<T = undefined> = BunServerWebSocket<T>;
}
