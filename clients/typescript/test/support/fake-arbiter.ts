import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Tally } from '../../src/internal/targeting-tallies.ts';
import type { ArbiterEvent } from '../../src/internal/wire.ts';
import { WIRE_LIMITS } from './wire-limits.ts';

/** What a config document holds, as docs/wire-format.md defines it. */
export interface ConfigDoc {
  config_version: number;
  bucketing_version: string;
  experiments: {
    id: string;
    name: string;
    version?: number;
    salt: string;
    bucket_count: number;
    ranges: { variant: string; start: number; end: number }[];
    variants: { key: string; prompt?: string; variables?: Record<string, unknown> }[];
    targeting?: unknown;
    coverage?: number;
    layer?: string;
    layer_ranges?: { start: number; end: number }[];
    holdouts?: string[];
    status?: 'running' | 'draft' | 'stopped';
    served_variant?: string;
  }[];
  saved_groups?: Record<string, unknown>;
  layers?: { name: string; salt: string; bucket_count: number }[];
  holdouts?: {
    id: string;
    name: string;
    salt: string;
    bucket_count: number;
    ranges: { start: number; end: number }[];
  }[];
}

/** Faults for the next `POST /v1/events` requests, used up in order. */
export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string }
  /** Never answers: the client's timeout must fire. */
  | { kind: 'hang' }
  /** Stores the batch, then drops the connection before answering: the ack is lost. */
  | { kind: 'store-then-reset' }
  /** Stores the batch, then the whole server goes down (until `start()`). */
  | { kind: 'store-then-die' };

export interface FakeArbiter {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Stored events, one per event_id, as the real server dedupes them. */
  readonly events: Map<string, ArbiterEvent>;
  /** The event ids of every `POST /v1/events` that reached the server, in arrival order. */
  readonly deliveries: string[][];
  /** Every `GET /v1/config`: the If-None-Match sent and the status answered. */
  readonly configRequests: { ifNoneMatch: string | null; status: number }[];
  readonly faults: Fault[];
  /** Every tally of `POST /v1/targeting-tallies` answered 200, in arrival order. */
  readonly tallies: Tally[];
  /** Statuses for the next `POST /v1/targeting-tallies` requests, used up in order. */
  readonly tallyFaults: number[];
  /** `POST /v1/targeting-tallies` requests that reached the server, refused ones included. */
  tallyRequests: number;
  config: ConfigDoc;
  /** Replaces the config; the ETag follows `config_version`. */
  setConfig(doc: ConfigDoc): void;
  /** Stops listening and cuts open connections; `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const EVENT_FIELDS = new Set(WIRE_LIMITS.event.fields);

/**
 * An Arbiter ingest plane on 127.0.0.1 that follows docs/wire-format.md and is as strict as the
 * document: unknown fields and malformed events come back in `rejected`.
 */
export async function startFakeArbiter(
  init: { config: ConfigDoc; apiKey?: string; port?: number } = { config: emptyConfig() },
): Promise<FakeArbiter> {
  const apiKey = init.apiKey ?? 'svc_pk_test';
  const sockets = new Set<Socket>();
  let server: Server = createServer();
  let port = init.port ?? 0;

  const fake: FakeArbiter = {
    get baseUrl() {
      return `http://127.0.0.1:${port}`;
    },
    apiKey,
    events: new Map(),
    deliveries: [],
    configRequests: [],
    faults: [],
    tallies: [],
    tallyFaults: [],
    tallyRequests: 0,
    config: init.config,
    setConfig(doc) {
      fake.config = doc;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async start() {
      server = createServer((req, res) => void handle(req, res));
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      port = (server.address() as AddressInfo).port;
    },
    close: () => fake.stop(),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    // Browsers call the API from the page's origin: a preflight for X-API-Key, and the ETag
    // exposed so that the client can send If-None-Match.
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'etag, retry-after');
    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'x-api-key, content-type, if-none-match, accept',
          'access-control-max-age': '600',
        })
        .end();
      return;
    }
    if (req.headers['x-api-key'] !== apiKey) return problem(res, 401, 'invalid API key');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/v1/config') return serveConfig(req, res);
    if (req.method === 'POST' && path === '/v1/events') return ingest(body, res);
    if (req.method === 'POST' && path === '/v1/targeting-tallies') return tally(body, res);
    problem(res, 404, 'not found');
  }

  function tally(raw: string, res: ServerResponse): void {
    fake.tallyRequests++;
    // As the real route: the secret key only.
    const status = apiKey.startsWith('svc_sk_') ? fake.tallyFaults.shift() : 401;
    if (status !== undefined) {
      problem(res, status, 'fault');
      return;
    }
    const { tallies } = JSON.parse(raw) as { tallies: Tally[] };
    fake.tallies.push(...tallies);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ accepted: tallies.length, rejected: [] }));
  }

  function serveConfig(req: IncomingMessage, res: ServerResponse): void {
    const etag = `"${fake.config.config_version}"`;
    const ifNoneMatch = (req.headers['if-none-match'] as string | undefined) ?? null;
    const status = ifNoneMatch === etag ? 304 : 200;
    fake.configRequests.push({ ifNoneMatch, status });
    if (status === 304) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json', etag })
      .end(JSON.stringify(fake.config));
  }

  function ingest(raw: string, res: ServerResponse): void {
    let batch: unknown[];
    try {
      const parsed = JSON.parse(raw) as { events?: unknown };
      if (!Array.isArray(parsed.events)) throw new Error('no events array');
      batch = parsed.events;
    } catch (err) {
      problem(res, 400, `body: ${String(err)}`);
      return;
    }
    fake.deliveries.push(batch.map((e) => String((e as { event_id?: unknown }).event_id)));
    const fault = fake.faults.shift();
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res
        .writeHead(fault.status, headers)
        .end(JSON.stringify({ status: fault.status, title: 'fault' }));
      return;
    }
    const rejected: { index: number; detail: string }[] = [];
    batch.forEach((event, index) => {
      const detail = invalid(event);
      if (detail !== null) rejected.push({ index, detail });
      else {
        const e = event as ArbiterEvent;
        if (!fake.events.has(e.event_id)) fake.events.set(e.event_id, e);
      }
    });
    if (fault?.kind === 'store-then-reset') {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'store-then-die') {
      void fake.stop();
      return;
    }
    if (rejected.length === batch.length && batch.length > 0) {
      problem(res, 400, `no valid event: ${rejected[0]?.detail}`);
      return;
    }
    res.writeHead(202, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        accepted: batch.length - rejected.length,
        config_version: fake.config.config_version,
        rejected,
      }),
    );
  }

  await fake.start();
  return fake;
}

export function emptyConfig(): ConfigDoc {
  return { config_version: 1, bucketing_version: '1', experiments: [] };
}

function invalid(event: unknown): string | null {
  if (typeof event !== 'object' || event === null) return 'not an object';
  const e = event as Record<string, unknown>;
  for (const key of Object.keys(e)) if (!EVENT_FIELDS.has(key)) return `${key}: unknown field`;
  if (typeof e.event_id !== 'string' || e.event_id.length < 1 || e.event_id.length > 128) {
    return 'event_id: 1-128 characters';
  }
  if (!WIRE_LIMITS.event.types.includes(e.type as string)) return 'type';
  if (typeof e.experiment_id !== 'string' || e.experiment_id === '') return 'experiment_id';
  if (typeof e.user_id !== 'string' || e.user_id.length < 1 || e.user_id.length > 256) {
    return 'user_id: 1-256 characters';
  }
  if (typeof e.timestamp !== 'string' || Number.isNaN(Date.parse(e.timestamp))) {
    return 'timestamp: must be an ISO 8601 date-time';
  }
  for (const key of ['latency_ms', 'input_tokens', 'output_tokens', 'cost_usd']) {
    if (key in e && !(typeof e[key] === 'number' && (e[key] as number) >= 0)) return `${key}: >= 0`;
  }
  if ('error' in e && e.error !== null && typeof e.error !== 'string') return 'error';
  if (e.type === 'business_event') {
    if (typeof e.business_metric !== 'string') return 'business_metric: required';
    if (typeof e.value !== 'number') return 'value: required';
  }
  return null;
}

function problem(res: ServerResponse, status: number, detail: string): void {
  res
    .writeHead(status, { 'content-type': 'application/problem+json' })
    .end(JSON.stringify({ type: 'about:blank', title: 'problem', status, detail }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
