/**
 * Does one org's hostile or huge OTLP export stall another org? On one server, another org's
 * `POST /v1/assign` latency is measured alone (the baseline), while one org sends ten 32 KB
 * gzip bombs (32 MiB of empty spans, 16.8 million of them), and while it sends one valid
 * export of 40,000 GenAI spans (about 16.7 MB of protobuf). Prints the neighbour's p50/p99 in
 * each phase, each bomb's status and answer time, and the export's.
 * Goals: every bomb answered 413 within 1 s; the neighbour's assign p99 under 50 ms throughout.
 *
 * Arbiter: `arbiter serve` as its own process on a fresh PostgreSQL database
 * (startBenchServer). Load: BENCH_ASSIGN_LOOPS sequential keep-alive assign loops in this
 * process, a different user every time; the bombs go out two at a time (each answer before
 * the next), under the per-org limit of exports at once.
 *
 * Run: npx tsx bench/server/otlp-hostile.bench.ts
 * Env: BENCH_BOMBS (10), BENCH_SPANS of the valid export (40000), BENCH_ASSIGN_LOOPS (2),
 * BENCH_BASELINE_SECONDS (5).
 */
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { OTLP_TRACE_DESCRIPTOR } from '../../apps/server/src/ingest/otlp/trace-descriptor.ts';
import { field } from '../../apps/server/test/support/protobuf-bytes.ts';
import {
  assignLoad,
  besideSecondOrg,
  latencyLine,
  type Neighbour,
  percentile,
} from './neighbour.ts';
import { onBenchServer } from './setup.ts';

const BOMBS = Number(process.env.BENCH_BOMBS ?? 10);
const SPANS = Number(process.env.BENCH_SPANS ?? 40_000);
const LOOPS = Number(process.env.BENCH_ASSIGN_LOOPS ?? 2);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 5);
const GOAL_P99_MS = 50;
const GOAL_BOMB_MS = 1000;
const INFLATED_BYTES = 32 * 1024 * 1024;

/** 32 MiB (just under) of empty spans, two bytes each, gzipped to about 32 KB. */
function gzipBomb(): Buffer {
  const spans = Buffer.alloc(INFLATED_BYTES - 16, Uint8Array.of(0x12, 0x00));
  return gzipSync(field(1, field(2, spans)), { level: 9 });
}

/** SPANS chat spans of 100 users with their prompt and answer, as a Collector would batch them. */
function bigExport(): Buffer {
  const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
  const Request = root.lookupType(
    'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  );
  const text = (value: string) => ({ stringValue: value });
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const messages = (role: string, content: string) =>
    JSON.stringify([{ role, parts: [{ type: 'text', content }] }]);
  const prompt = messages('user', 'Summarise this ticket in one line.');
  const answer = messages('assistant', 'A one-line summary.');
  const spans = Array.from({ length: SPANS }, (_, i) => ({
    traceId: Buffer.from(i.toString(16).padStart(32, 'a'), 'hex'),
    spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
    name: 'chat',
    kind: 3,
    startTimeUnixNano: String(start + BigInt(i) * 1000n),
    endTimeUnixNano: String(start + BigInt(i) * 1000n + 900_000_000n),
    attributes: [
      { key: 'gen_ai.operation.name', value: text('chat') },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: 120 } },
      { key: 'gen_ai.usage.output_tokens', value: { intValue: 42 } },
      { key: 'gen_ai.input.messages', value: text(prompt) },
      { key: 'gen_ai.output.messages', value: text(answer) },
      { key: 'arbiter.user_id', value: text(`u-${i % 100}`) },
    ],
    status: { code: 1 },
  }));
  const resource = { attributes: [{ key: 'arbiter.experiment', value: text('otlp') }] };
  const request = { resourceSpans: [{ resource, scopeSpans: [{ spans }] }] };
  return Buffer.from(Request.encode(Request.fromObject(request)).finish());
}

async function send(url: string, key: string, body: Buffer, gzip: boolean) {
  const started = performance.now();
  const res = await fetch(`${url}/v1/otlp/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'x-api-key': key,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body,
  });
  const answer = Buffer.from(await res.arrayBuffer());
  return { status: res.status, ms: performance.now() - started, answer };
}

const line = (label: string, t: Float64Array) => latencyLine(label, t, 36);

/** The neighbour's assigns while `work` runs. */
async function beside<T>(neighbour: Neighbour, work: () => Promise<T>) {
  let done = false;
  const running = work().finally(() => {
    done = true;
  });
  const times = await assignLoad(neighbour, () => done);
  return { times, result: await running };
}

async function bombs(url: string, key: string, bomb: Buffer) {
  const answers: Array<{ status: number; ms: number }> = [];
  const sender = async (count: number) => {
    for (let i = 0; i < count; i++) answers.push(await send(url, key, bomb, true));
  };
  await Promise.all([sender(Math.ceil(BOMBS / 2)), sender(Math.floor(BOMBS / 2))]);
  return answers;
}

const bomb = gzipBomb();
const big = bigExport();
await onBenchServer({}, async (bench) => {
  const url = bench.server.url;
  const exporter = { name: 'exporter', experiment: 'otlp', scope: 'publishable' } as const;
  const side = await besideSecondOrg(bench, LOOPS, BASELINE_SECONDS, exporter);
  const { key: exporterKey, neighbour, idle } = side;
  const bombed = await beside(neighbour, () => bombs(url, exporterKey, bomb));
  const exported = await beside(neighbour, () => send(url, exporterKey, big, false));

  console.log(
    `${BOMBS} gzip bombs of ${(bomb.length / 1024).toFixed(1)} KB (${INFLATED_BYTES / 2 ** 20} MiB unpacked) and one export of ${SPANS} GenAI spans (${(big.length / 1e6).toFixed(1)} MB) by one org; the other org's POST /v1/assign from ${LOOPS} sequential keep-alive loops; Arbiter on PostgreSQL`,
  );
  console.log(line('assign, alone', idle));
  console.log(line('assign, beside the bombs', bombed.times));
  console.log(line('assign, beside the 40,000-span export', exported.times));
  const bombMs = bombed.result.map((b) => b.ms);
  console.log(
    `bombs answered ${[...new Set(bombed.result.map((b) => b.status))].join('/')} after ${bombMs.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
  console.log(
    `export answered ${exported.result.status} after ${(exported.result.ms / 1000).toFixed(2)} s (${exported.result.answer.length} bytes of response)`,
  );
  const bombsMet = bombed.result.every((b) => b.status === 413 && b.ms < GOAL_BOMB_MS);
  const p99s = [percentile(bombed.times, 99), percentile(exported.times, 99)];
  console.log(`bombs 413 within ${GOAL_BOMB_MS} ms: ${bombsMet ? 'met' : 'NOT met'}`);
  console.log(
    `assign p99 beside bombs / export: ${p99s.map((p) => p.toFixed(2)).join(' / ')} ms  goal < ${GOAL_P99_MS} ms: ${p99s.every((p) => p < GOAL_P99_MS) ? 'met' : 'NOT met'}`,
  );
});
