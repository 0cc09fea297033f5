import type { ObservedPolicy, RateLimitInfo } from '../headers/parse.js';
import { SelfThrottle } from './self-throttle.js';
import { Waiters } from './waiters.js';

/** The most routes remembered per origin; the oldest is forgotten first. */
const MAX_ROUTES = 1024;

/** One request sent under a policy and not yet covered by a newer response. */
interface Sent {
  seq: number;
  done: boolean;
  /** The units it counts: 1, a route's `c`, or a token estimate. */
  cost: number;
}

/** What the client knows of one policy of one origin. */
export interface PolicyState {
  id: string;
  name: string | undefined;
  quota: number | undefined;
  windowMs: number | undefined;
  concurrent: boolean;
  /** A policy in tokens: a request counts its estimate (none: the policy does not pace). */
  tokens: boolean;
  /** The cost (`c`) each route's latest response reported, by route. */
  costs: Map<string, number>;
  /** The request whose response set `remaining` / `resetAt` (0: none yet). */
  seenSeq: number;
  remaining: number | undefined;
  resetAt: number | undefined;
  /** When the latest response naming this policy arrived. */
  seenAt: number;
  /** Requests sent under this policy after `seenSeq`, in order. */
  sent: Sent[];
  /** Requests in flight (for a concurrency policy). */
  inFlight: number;
  /** Held back until then by a `Retry-After` that named this policy. */
  blockedUntil: number;
  /**
   * For a policy whose headers give no window (legacy): the window guessed from its responses,
   * in ms (see {@link OriginState.observe}); `undefined`: none yet, or no longer trusted.
   */
  guessedWindowMs: number | undefined;
  /** A 429 came while the guess was in use: guess no more. */
  noGuess: boolean;
  /** When the first request of the current cycle (from full) was sent. */
  cycleStart: number | undefined;
}

/** The verdict of {@link OriginState.check} for one request. */
export type Gate =
  | { go: true; probe: boolean; routeProbe?: boolean; policies: PolicyState[] }
  | { go: false; until: number; policy: PolicyState | undefined }
  | { go: false; until: undefined; policy: PolicyState | undefined; probe: boolean };

/** A request sent: what {@link OriginState.record} needs to account for its response. */
export interface Ticket {
  seq: number;
  /** When it was sent (ms on the clock). */
  sentAt: number;
  route: string;
  probe: boolean;
  routeProbe: boolean;
  policies: PolicyState[];
}

/**
 * What one paced fetch knows of one origin: its policies (by name and partition key), which
 * policies each route (path) came back with, and who is waiting for a response.
 */
export class OriginState {
  private readonly policies = new Map<string, PolicyState>();
  private readonly routes = new Map<string, PolicyState[]>();
  private learnt = false;
  private probing = false;
  private readonly probingRoutes = new Set<string>();
  private seq = 0;
  private blockedUntil = 0;
  /** The requests of this origin that wait. */
  readonly waiters: Waiters;
  /** `selfThrottle`'s counts for this origin. */
  readonly throttle = new SelfThrottle();
  /** Whether the latest answer carried rate-limit policies (then they pace, not the formula). */
  headed = false;

  constructor(clock: () => number, sleep: (ms: number, signal?: AbortSignal) => Promise<void>) {
    this.waiters = new Waiters(clock, sleep);
  }

  /** Whether a request to `route` may go now, and if not until when (or until a response). */
  check(route: string, now: number, tokens?: number): Gate {
    if (!this.learnt) {
      if (this.probing) return { go: false, until: undefined, policy: undefined, probe: true };
      return { go: true, probe: true, policies: [] };
    }
    const gating = this.routes.get(route);
    if (gating === undefined) {
      // A route with no response yet: its policies are unknown (another route's spent login
      // limit says nothing about it). One request finds out; the rest wait for its response.
      if (this.blockedUntil > now)
        return { go: false, until: this.blockedUntil, policy: undefined };
      if (this.probingRoutes.has(route)) {
        return { go: false, until: undefined, policy: undefined, probe: true };
      }
      return { go: true, probe: false, routeProbe: true, policies: [] };
    }
    let until = this.blockedUntil > now ? this.blockedUntil : 0;
    let blocking: PolicyState | undefined;
    let awaitResponse: PolicyState | undefined;
    for (const p of gating) {
      if (p.blockedUntil > now && p.blockedUntil > until) {
        until = p.blockedUntil;
        blocking = p;
      }
      if (p.concurrent) {
        if (p.quota !== undefined && p.inFlight >= Math.max(1, p.quota)) awaitResponse = p;
        continue;
      }
      const cost = costOf(p, route, tokens);
      if (p.remaining === undefined || cost === undefined || cost === 0) continue;
      const reset = effectiveReset(p);
      const restored = reset !== undefined && now >= reset;
      const base = restored ? (p.quota ?? 1) : p.remaining;
      let used = 0;
      let inFlight = 0;
      let pending = 0;
      for (const s of p.sent) {
        if (!s.done) {
          inFlight += s.cost;
          pending++;
        } else if (!restored) used += s.cost;
      }
      if (base - used - inFlight >= cost) continue;
      if (!restored && reset !== undefined) {
        if (reset > until) {
          until = reset;
          blocking = p;
        }
      } else if (pending > 0) {
        awaitResponse = p;
      }
      // Else spent, with no reset known and nothing in flight: one request finds out.
    }
    if (until > now) return { go: false, until, policy: blocking };
    if (awaitResponse !== undefined) {
      return { go: false, until: undefined, policy: awaitResponse, probe: false };
    }
    return { go: true, probe: false, policies: gating };
  }

  /** Records a request as sent under `gate`'s policies. */
  send(route: string, gate: Extract<Gate, { go: true }>, now: number, tokens?: number): Ticket {
    const seq = ++this.seq;
    if (gate.probe) this.probing = true;
    if (gate.routeProbe === true) this.probingRoutes.add(route);
    for (const p of gate.policies) {
      const reset = effectiveReset(p);
      if (reset !== undefined && now >= reset && p.remaining !== undefined) {
        // Back to full: the responses before this one no longer count.
        p.remaining = p.quota ?? 1;
        p.resetAt = undefined;
        p.sent = p.sent.filter((s) => !s.done);
        p.cycleStart = now;
      }
      p.sent.push({ seq, done: false, cost: costOf(p, route, tokens) ?? 0 });
      if (p.concurrent) p.inFlight++;
    }
    return {
      seq,
      sentAt: now,
      route,
      probe: gate.probe,
      routeProbe: gate.routeProbe === true,
      policies: gate.policies,
    };
  }

  /**
   * Accounts for the response to `ticket` (`info` undefined: the request failed without one).
   * `retryAt` / `violated` hold back the policies a 429 / 503 named.
   */
  record(
    ticket: Ticket,
    info: RateLimitInfo | undefined,
    now: number,
    retryAt?: number,
    violated?: readonly string[],
  ): PolicyState | undefined {
    if (ticket.probe) {
      this.probing = false;
      if (info !== undefined) this.learnt = true;
    }
    if (ticket.routeProbe) this.probingRoutes.delete(ticket.route);
    for (const p of ticket.policies) {
      const s = p.sent.find((x) => x.seq === ticket.seq);
      if (s !== undefined) s.done = true;
      if (p.concurrent) p.inFlight = Math.max(0, p.inFlight - 1);
    }
    const named: PolicyState[] = [];
    for (const o of info?.policies ?? []) named.push(this.observe(o, ticket, now));
    if (info !== undefined) this.headed = named.length > 0;
    // A route's policies are the ones its latest response named (none: not limited).
    if (info !== undefined && (named.length > 0 || !this.routes.has(ticket.route))) {
      this.routes.delete(ticket.route);
      this.routes.set(ticket.route, named);
      if (this.routes.size > MAX_ROUTES) this.routes.delete(this.routes.keys().next().value!);
    }
    let blocked: PolicyState | undefined;
    if (retryAt !== undefined) {
      // The policy the response says is spent, else the ones the problem body names, else all.
      let targets = named.filter((p) => !p.concurrent && p.remaining === 0);
      if (targets.length === 0 && violated !== undefined) {
        targets = [...this.policies.values()].filter((p) => violated.includes(p.name ?? ''));
      }
      if (targets.length === 0) {
        this.blockedUntil = Math.max(this.blockedUntil, retryAt);
      }
      for (const p of targets) {
        p.blockedUntil = Math.max(p.blockedUntil, retryAt);
        if (p.guessedWindowMs !== undefined) {
          p.guessedWindowMs = undefined;
          p.noGuess = true;
        }
      }
      blocked = targets[0];
    }
    this.waiters.responded();
    return blocked;
  }

  /**
   * Merges one policy of a response to `ticket` into what is known.
   *
   * A policy with no window in its headers (legacy) gets one guessed, since its reset comes
   * in whole epoch seconds, up to 1 s late. In a cycle that began from full at `cycleStart`,
   * the response after `k` requests says the quota is whole again by `reset`; a quota of `q`
   * per `w` that refills evenly (GCRA) needs `k·w/q` after the first of them for that, so
   * `q·(reset - cycleStart)/k` is never less than `w`. The least of these is the guess, and
   * the policy counts as full again `guess` after its latest response. A fixed window can break
   * that rule once: its 429 ends the guessing.
   */
  private observe(o: ObservedPolicy, ticket: Ticket, now: number): PolicyState {
    const seq = ticket.seq;
    let p = this.policies.get(o.id);
    if (p === undefined) {
      p = {
        id: o.id,
        name: o.name,
        quota: undefined,
        windowMs: undefined,
        concurrent: false,
        tokens: o.tokens,
        costs: new Map(),
        seenSeq: 0,
        remaining: undefined,
        resetAt: undefined,
        seenAt: now,
        sent: [],
        inFlight: 0,
        blockedUntil: 0,
        guessedWindowMs: undefined,
        noGuess: false,
        cycleStart: ticket.sentAt,
      };
      this.policies.set(o.id, p);
    }
    if (o.quota !== undefined) p.quota = o.quota;
    if (o.windowSeconds !== undefined) p.windowMs = o.windowSeconds * 1000;
    if (o.concurrent) p.concurrent = true;
    if (o.cost !== undefined) {
      p.costs.delete(ticket.route);
      p.costs.set(ticket.route, o.cost);
      if (p.costs.size > MAX_ROUTES) p.costs.delete(p.costs.keys().next().value!);
    }
    // An response older than the one already read says nothing new about the state.
    if (seq >= p.seenSeq && (o.remaining !== undefined || o.resetAt !== undefined)) {
      p.seenSeq = seq;
      p.seenAt = now;
      if (o.remaining !== undefined) p.remaining = o.remaining;
      p.resetAt = o.resetAt;
      p.sent = p.sent.filter((s) => s.seq > seq);
      if (
        p.windowMs === undefined &&
        !p.noGuess &&
        p.quota !== undefined &&
        o.remaining !== undefined &&
        o.resetAt !== undefined &&
        p.cycleStart !== undefined
      ) {
        const k = p.quota - o.remaining;
        const guess = k >= 1 ? (p.quota * (o.resetAt - p.cycleStart)) / k : 0;
        if (guess > 0) p.guessedWindowMs = Math.min(p.guessedWindowMs ?? guess, guess);
      }
    }
    return p;
  }
}

/**
 * The units a request to `route` counts under `p`: its estimate for a token policy
 * (`undefined` without one: not paced), else the route's last reported cost, else 1.
 */
function costOf(p: PolicyState, route: string, tokens: number | undefined): number | undefined {
  return p.tokens ? tokens : (p.costs.get(route) ?? 1);
}

/**
 * When a policy is back to full: the reset the server sent, or sooner when the policy has a
 * window `w` (a quota of `q` per `w` is whole again `w` after the last request it counted,
 * which was before its response arrived), since a reset in whole seconds can be up to 1 s late.
 */
function effectiveReset(p: PolicyState): number | undefined {
  const window = p.windowMs ?? p.guessedWindowMs;
  if (window === undefined) return p.resetAt;
  const bound = p.seenAt + window;
  return p.resetAt === undefined ? bound : Math.min(p.resetAt, bound);
}
