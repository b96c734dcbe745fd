import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MeasuredRun } from '../../apps/server/src/cli/capacity-constants.ts';
import type { Shape } from './deployment.ts';
import { label } from './rounds.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONSTANTS = `${ROOT}apps/server/src/cli/capacity-constants.ts`;
const DOC = `${ROOT}docs/capacity.md`;

export interface Check {
  shape: Shape;
  fitted: boolean;
  predicted: number;
  measured: number;
  rate: number;
  off: number;
}

/** Replaces what lies between two marker lines of a text, the markers kept. */
function between(text: string, start: string, end: string, body: string): string {
  const i = text.indexOf(start);
  const j = text.indexOf(end, i);
  if (i === -1 || j === -1) throw new Error(`no ${start} … ${end} in the file`);
  return `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`;
}

const n1 = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(1));
const COLUMNS = ['api', 'brokers', 'fold', 'postgres', 'objectStore'] as const;

function netTable(m: MeasuredRun): string[] {
  const names = {
    singleNode: 'single node',
    kafka: 'Kafka 1 API/1 part/1 fold',
    singleNodeObjectStore: 'single node, object store',
    kafkaObjectStore: 'Kafka 1 API/1 part/1 fold, object store',
  } as const;
  const lines = [
    '| Deployment | Batch | API | Brokers | Fold | PostgreSQL | Object store | Total |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [key, name] of Object.entries(names)) {
    for (const [batch, cpu] of Object.entries(m.cpu[key as keyof typeof names])) {
      const total = COLUMNS.reduce((s, c) => s + (cpu[c] ?? 0), 0);
      lines.push(
        `| ${name} | ${batch} | ${COLUMNS.map((c) => n1(cpu[c])).join(' | ')} | **${n1(total)}** |`,
      );
    }
  }
  return lines;
}

function modelTable(m: MeasuredRun): string[] {
  const k = m.kafka;
  const row = (what: string, r: Record<string, number>) =>
    `| ${what} | ${(['api', 'brokers', 'fold', 'postgres'] as const).map((c) => n1(r[c])).join(' | ')} |`;
  return [
    '| Term | API | Brokers | Fold | PostgreSQL |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('µs per event', k.perEventUs),
    row('ms a second per API process', k.perApiProcessMs),
    row('ms a second per fold worker (its partition)', k.perFoldWorkerMs),
    row('ms a second, shared (the broker, the server, idle)', k.sharedMs),
  ];
}

/** The constants section of docs/capacity.md: the run, the net tables, the model's terms. */
function constantsSection(m: MeasuredRun): string {
  const s = m.objectStore.perEventUs;
  return [
    `\`${m.run.command}\` at commit \`${m.run.commit}\`, on the 2-core shared host (load average ${m.run.loadAverage}); ${m.run.rounds} round(s), ${m.run.events.toLocaleString('en-US')} events a batch size and deployment, each model call with a ${m.run.promptChars.toLocaleString('en-US')}-character prompt and a ${m.run.responseChars}-character response.`,
    '',
    'CPU µs per event, net of each component’s idle CPU (median of the rounds):',
    '',
    ...netTable(m),
    '',
    `The Kafka path's model at batch 100, fitted on ${m.kafka.fittedOn.join(', ')} (API processes/partitions/fold workers) of the same run: a component's CPU ms a second is the rate times its µs per event, plus its terms a second for each API process and each fold worker, plus the shared term:`,
    '',
    ...modelTable(m),
    '',
    `The object store adds to the single node, net µs per event: API ${n1(s.api)}, PostgreSQL ${n1(s.postgres)}, the store ${n1(s.objectStore)}; the store idles at ${n1(m.objectStore.idleMs)} ms a second.`,
    '',
    `Idle CPU, ms a second, of one process with nothing to do (the PostgreSQL server and the object store as a whole): an API process ${n1(m.idleMs.api)}, a broker ${n1(m.idleMs.brokers)}, a fold worker ${n1(m.idleMs.fold)}, PostgreSQL ${n1(m.idleMs.postgres)}, the object store ${n1(m.idleMs.objectStore)}, the single node's process ${n1(m.idleMs.singleNode)}.`,
    '',
    `Bytes, each with its indexes and TOAST (\`pg_total_relation_size\` over the rows of the same run): an \`events\` row ${m.bytes.eventRow.toLocaleString('en-US')} B with its model text, ${m.bytes.eventRowObjectStore.toLocaleString('en-US')} B with the text in the object store; an \`event_claims\` row ${m.bytes.claimRow} B; a \`user_day_stats\` row ${m.bytes.userDayStatsRow} B; an event's text on the object store's disk ${m.bytes.objectStorePerEvent.toLocaleString('en-US')} B; a message on a broker's disk ${m.bytes.brokerPerEvent.toLocaleString('en-US')} B (one replica). Peak resident memory of one process: an API process ${m.memoryMiB.api} MiB, a fold worker ${m.memoryMiB.fold} MiB, a broker's JVM ${m.memoryMiB.broker} MiB.`,
  ].join('\n');
}

function checkSection(checks: readonly Check[]): string {
  const lines = [
    '| Configuration | Fitted or held out | Events/s | Predicted µs | Measured µs | Off | Within ±20 % |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of checks) {
    const off = c.off * 100;
    lines.push(
      `| ${label(c.shape)} | ${c.fitted ? 'fitted' : '**held out**'} | ${c.rate.toFixed(0)} | ${n1(c.predicted)} | ${n1(c.measured)} | ${off >= 0 ? '+' : ''}${off.toFixed(1)} % | ${Math.abs(off) <= 20 ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** The worked example's tables, printed by the command of docs/capacity.md over the new constants. */
function workedExample(doc: string): string {
  const section = doc.slice(doc.indexOf('\n## Worked example'));
  const args = /^npx arbiter (capacity .*)$/m.exec(section)?.[1]?.trim().split(/\s+/) ?? [];
  const out = execFileSync('npx', ['tsx', 'apps/server/src/cli.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const tables = out.split('\n').filter((l) => l.startsWith('|'));
  const split = tables.findIndex((l) => l.startsWith('| Figure'));
  return [...tables.slice(0, split), '', ...tables.slice(split)].join('\n');
}

/**
 * Writes the constants module's measured region and docs/capacity.md's tables (the constants,
 * the model checked, and the worked example, printed by `arbiter capacity` over the new
 * constants) from a run.
 */
export function writeConstants(measured: MeasuredRun, checks: readonly Check[]): void {
  const source = between(
    readFileSync(CONSTANTS, 'utf8'),
    '// measured: start (written by `BENCH_WRITE=run.json npx tsx bench/scale-out/cpu-per-event.bench.ts`)',
    '// measured: end',
    `export const MEASURED: MeasuredRun = ${JSON.stringify(measured, null, 2)};`,
  );
  writeFileSync(CONSTANTS, source);
  execFileSync('npx', ['biome', 'format', '--write', CONSTANTS], { cwd: ROOT });
  let doc = readFileSync(DOC, 'utf8');
  doc = between(
    doc,
    '<!-- measured: constants -->',
    '<!-- /measured -->',
    constantsSection(measured),
  );
  doc = between(
    doc,
    '<!-- measured: checked -->',
    '<!-- /measured: checked -->',
    checkSection(checks),
  );
  writeFileSync(DOC, doc);
  doc = between(
    doc,
    '<!-- measured: example -->',
    '<!-- /measured: example -->',
    workedExample(doc),
  );
  writeFileSync(DOC, doc);
  console.log(`\nwrote ${CONSTANTS} and ${DOC}`);
}
