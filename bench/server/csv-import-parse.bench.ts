/**
 * The CPU an import's CSV parsing and checking costs the server's one event
 * loop. parseCsvImport (records split by csv-parse, each field's quoting checked, cells
 * converted) on BENCH_ROWS business-event rows, against the floor: csv-parse alone, with its
 * defaults, on the same bytes. Alternating rounds in one process, so that other work on the
 * machine falls on both; prints CPU milliseconds per import and the ratio.
 *
 * Run: npx tsx bench/server/csv-import-parse.bench.ts
 * Env: BENCH_ROWS (100000, about 7.6 MB), BENCH_ROUNDS (5), BENCH_QUOTED (0: share of rows, 0 to
 * 1, whose prompt column is quoted, so the field-by-field path is measured too).
 */
import { parse } from 'csv-parse/sync';
import { parseCsvImport } from '../../apps/server/src/ingest/import/csv.ts';
import { businessEventsCsv } from '../../apps/server/test/support/builders.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUOTED = Number(process.env.BENCH_QUOTED ?? 0);

/** The bench rows, with a `model` column quoted on a share of them. */
function payload(): string {
  const [header, ...rows] = businessEventsCsv('bench', ROWS).split('\n');
  const every = QUOTED > 0 ? Math.round(1 / QUOTED) : 0;
  const withModel = rows.map((row, i) =>
    every > 0 && i % every === 0 ? `${row},"a ""quoted"", model"` : `${row},`,
  );
  return [`${header},model`, ...withModel].join('\n');
}

async function cpuMs(run: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const csv = payload();
const floor: number[] = [];
const ours: number[] = [];
let rows = 0;
for (let round = 0; round < ROUNDS; round++) {
  floor.push(await cpuMs(() => parse(csv)));
  ours.push(
    await cpuMs(async () => {
      rows = (await parseCsvImport(csv)).rows.length;
    }),
  );
}
if (rows !== ROWS) throw new Error(`parsed ${rows} rows of ${ROWS}`);
console.log(
  `${ROWS} CSV rows (${(Buffer.byteLength(csv) / 1e6).toFixed(1)} MB, ${QUOTED * 100} % quoted), median of ${ROUNDS} rounds, CPU ms`,
);
console.log(`csv-parse alone (floor)   ${median(floor).toFixed(0).padStart(6)}`);
console.log(`parseCsvImport            ${median(ours).toFixed(0).padStart(6)}`);
console.log(`ratio to the floor        ${(median(ours) / median(floor)).toFixed(2)}`);
