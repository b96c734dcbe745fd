import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.ts';
import { ProblemError } from './problems.ts';

/** The ingest plane's rate window: a count per key per minute. */
export const RATE_WINDOW_MS = 60_000;
/** Keys (and preflight addresses) remembered at once, as @fastify/rate-limit's LocalStore. */
const REMEMBERED_KEYS = 5000;

interface Window {
  current: number;
  ttl: number;
  iterationStartMs: number;
}

/**
 * Fixed-window request counts per key, least recently used forgotten first: the same counting
 * as @fastify/rate-limit's LocalStore (no back-off, no extension while exceeded), usable both as
 * that plugin's store and synchronously by the assign route's own hook, so both count against
 * one budget per key.
 */
export class KeyRateWindows {
  readonly #windows = new Map<string, Window>();
  /** The most recently used key: hit again (one busy key), it needs no re-insertion. */
  #newest: string | undefined;

  hit(key: string, windowMs: number): Window {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined) {
      window = { current: 1, ttl: windowMs, iterationStartMs: now };
    } else if (window.iterationStartMs + windowMs <= now) {
      window.current = 1;
      window.ttl = windowMs;
      window.iterationStartMs = now;
    } else {
      window.current += 1;
      window.ttl = windowMs - (now - window.iterationStartMs);
    }
    if (key !== this.#newest) this.#touch(key, window);
    return window;
  }

  /** Re-inserted, the key becomes the most recently used (a Map iterates in insertion order). */
  #touch(key: string, window: Window): void {
    this.#windows.delete(key);
    if (this.#windows.size >= REMEMBERED_KEYS) {
      const oldest = this.#windows.keys().next().value;
      if (oldest !== undefined) this.#windows.delete(oldest);
    }
    this.#windows.set(key, window);
    this.#newest = key;
  }

  /** The plugin's store interface. */
  incr(
    key: string,
    callback: (error: Error | null, result: Window) => void,
    windowMs: number,
  ): void {
    callback(null, this.hit(key, windowMs));
  }

  child(): KeyRateWindows {
    return new KeyRateWindows();
  }

  /**
   * The plugin constructs its store with `new`; a constructor that returns an object hands it
   * this instance instead of a fresh one.
   */
  asStore(): FastifyRateLimitStoreCtor {
    const shared = this;
    return function SharedWindows() {
      return shared;
    } as unknown as FastifyRateLimitStoreCtor;
  }
}

/** A keyed request counts against its key; a preflight (no key) against its address. */
export const rateKeyOf = (request: FastifyRequest): string =>
  request.keyCaller?.keyHash ?? `ip:${request.ip}`;

/** The publishable key, which ships in client code, gets the stricter limit. */
export function maxPerMinute(config: Config, request: FastifyRequest): number {
  return request.keyCaller?.scope === 'secret'
    ? config.rateLimitSecretPerMinute
    : config.rateLimitPublishablePerMinute;
}

/** The words @lukeed/ms gives the plugin's `after` for a wait within the one-minute window. */
function waitInWords(seconds: number): string {
  return seconds >= 60 ? '1 minute' : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

export function rateLimitedProblem(max: number, ttlMs: number): ProblemError {
  return new ProblemError(
    'rate-limited',
    `More than ${max} requests per minute with this key; retry in ${waitInWords(Math.ceil(ttlMs / 1000))}`,
  );
}

/**
 * preHandler of the assign route: the plugin's counting and refusal (the same headers, the
 * same problem) without its per-request promises, route-options copy and result objects.
 */
export function keyRateLimitHook(config: Config, windows: KeyRateWindows) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const max = maxPerMinute(config, request);
    const window = windows.hit(rateKeyOf(request), RATE_WINDOW_MS);
    if (window.current <= max) {
      done();
      return;
    }
    const seconds = Math.ceil(window.ttl / 1000);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', 0);
    reply.header('x-ratelimit-reset', seconds);
    reply.header('retry-after', seconds);
    done(rateLimitedProblem(max, window.ttl));
  };
}
