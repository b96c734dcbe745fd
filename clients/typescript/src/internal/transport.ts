import {
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
  retryDelayMs,
} from './retry-policy.ts';

export interface TransportOptions extends RetryPolicy {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent unchanged on every attempt, so a retried batch carries the same event ids. */
  body?: string;
  /** Lets the request outlive a closing page (browser). */
  keepalive?: boolean;
}

export type TransportResult =
  | { kind: 'ok'; status: number; headers: Headers; body: unknown }
  | { kind: 'not-modified' }
  /** The server refused the request for good (a 4xx that retrying would not change). */
  | { kind: 'refused'; status: number; detail: string }
  /** Every attempt failed on the network, by timeout or with a retryable status. */
  | { kind: 'unreachable'; detail: string };

/**
 * The one place that talks HTTP. It never throws: every outcome, network failures included, is
 * a value the caller has to look at.
 */
export class Transport {
  private readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    req: RequestOptions = {},
  ): Promise<TransportResult> {
    const { maxAttempts } = this.options;
    let detail = 'no attempt made';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const outcome = await this.attempt(method, path, req);
      if (outcome.kind !== 'retry') return outcome.result;
      detail = outcome.detail;
      if (attempt < maxAttempts) {
        await sleep(retryDelayMs(attempt, outcome.retryAfterMs, this.options, Math.random()));
      }
    }
    return { kind: 'unreachable', detail };
  }

  private async attempt(
    method: 'GET' | 'POST',
    path: string,
    req: RequestOptions,
  ): Promise<
    | { kind: 'done'; result: TransportResult }
    | { kind: 'retry'; detail: string; retryAfterMs: number | null }
  > {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const init: RequestInit = {
        method,
        headers: {
          accept: 'application/json',
          'x-api-key': this.options.apiKey,
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...req.headers,
        },
        signal: controller.signal,
      };
      if (req.body !== undefined) init.body = req.body;
      if (req.keepalive) init.keepalive = true;
      const res = await this.options.fetch(`${this.baseUrl}${path}`, init);
      const text = await res.text();
      if (res.status === 304) return { kind: 'done', result: { kind: 'not-modified' } };
      if (res.ok) {
        return {
          kind: 'done',
          result: { kind: 'ok', status: res.status, headers: res.headers, body: parseJson(text) },
        };
      }
      const detail = `HTTP ${res.status}${problemDetail(text)}`;
      if (isRetryableStatus(res.status)) {
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now());
        return { kind: 'retry', detail, retryAfterMs };
      }
      return { kind: 'done', result: { kind: 'refused', status: res.status, detail } };
    } catch (err) {
      const detail = controller.signal.aborted
        ? `timed out after ${this.options.timeoutMs} ms`
        : describeNetworkError(err);
      return { kind: 'retry', detail, retryAfterMs: null };
    } finally {
      clearTimeout(timer);
    }
  }
}

function sleep(ms: number): Promise<void> {
  // Not unref'd: a caller awaiting close() must not see the process exit mid-retry.
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** RFC 9457 problems carry the useful words in `detail` (or `title`). */
function problemDetail(text: string): string {
  const body = parseJson(text);
  if (typeof body !== 'object' || body === null) return '';
  const { detail, title } = body as { detail?: unknown; title?: unknown };
  const words = typeof detail === 'string' ? detail : typeof title === 'string' ? title : '';
  return words === '' ? '' : `: ${words}`;
}

function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // Node's fetch hides the socket error (ECONNREFUSED, ECONNRESET) in `cause`.
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${err.message}${code}`;
}
