/**
 * assign() calls per second of @arbiter/client against the GrowthBook JS SDK evaluating the
 * same two-arm 50/50 experiment through its multi-user path (GrowthBookClient.evalFeature with
 * a per-call user context). Both run in one process, interleaved round by round, over the same
 * 16 384 users; the median round is reported. The floor is the experiment's bucket function
 * alone (the frozen hash with `salt:` pre-hashed), in the same process. Then the scale curve:
 * assign() over 1x, 4x, 16x and 64x the users (64x = 1,048,576), exposures off and on with
 * every user already exposed (the exposure table holds them all), the ratio on / off, the
 * memory the table added, and the client's dropped count, which must be 0: the warm-up that
 * exposes every user flushes as it goes, as an app's background flush would. Two more
 * contenders: the experiment behind a five-clause targeting condition, and behind a holdout and
 * in a layer (three hashes a call: holdout, layer, bucket). And the five-clause condition with
 * each user's PreparedAttributes built once before the rounds (as a request-scoped context is),
 * and built on every call (construction + assign), so that its cost shows.
 *
 *   npx tsx --expose-gc bench/typescript-client/assign.bench.ts [roundMs=1000] [rounds=7]
 * (--expose-gc: the memory figures are read after a full collection.)
 *   BENCH_SCALE=0 skips the scale curve; BENCH_ONLY_SCALE=1 runs only it.
 */
import { GrowthBookClient, type UserContext } from '@growthbook/growthbook';
import {
  Arbiter,
  type Attributes,
  PreparedAttributes,
} from '../../clients/typescript/src/index.ts';
import { bucketOf, createBucketer } from '../../packages/bucketing/src/index.ts';

const ROUND_MS = Number(process.argv[2] ?? 1_000);
const ROUNDS = Number(process.argv[3] ?? 7);
const USERS = 1 << 14;
const CHUNK = 4_096;
const EXPERIMENT = 'checkout-prompt';
/** The same experiment behind a five-clause targeting condition (goal: >= 0.5x the untargeted call). */
const TARGETED = 'checkout-prompt-targeted';
const FIVE_CLAUSES = {
  plan: { $in: ['pro', 'team'] },
  locale: { $regexi: '^en' },
  'app.version': { $vgte: '2.4.0' },
  country: { $nin: ['CU', 'IR'] },
  age: { $gte: 18 },
};
/** The same experiment behind a holdout (2.5 % out) and in a layer (60 % of its buckets). */
const GATED = 'checkout-prompt-gated';
/** Attributes of user i: nine in ten match all five clauses, so most calls reach the bucket. */
const attributesOf = (i: number) => ({
  plan: i % 10 === 0 ? 'free' : i % 2 ? 'pro' : 'team',
  locale: i % 3 ? 'en-US' : 'EN-gb',
  app: { version: `2.${4 + (i % 7)}.${i % 13}` },
  country: ['US', 'DE', 'FR', 'JP'][i % 4],
  age: 18 + (i % 50),
});

/** An experiment of the config: two arms, half the users each, on the same salt. */
const halves = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  version: 1,
  salt: 's-8f2a',
  bucket_count: 10_000,
  ranges: [
    { variant: 'control', start: 0, end: 5_000 },
    { variant: 'concise', start: 5_000, end: 10_000 },
  ],
  variants: [{ key: 'control' }, { key: 'concise' }],
  ...extra,
});

const config = {
  config_version: 1,
  bucketing_version: '1',
  experiments: [
    halves('0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e', EXPERIMENT),
    halves('7d1c2b3a-0000-4000-8000-000000000005', TARGETED, { targeting: FIVE_CLAUSES }),
    halves('7d1c2b3a-0000-4000-8000-000000000006', GATED, {
      layer: 'chat',
      layer_ranges: [{ start: 0, end: 600 }],
      holdouts: ['5d1e0000-0000-4000-8000-00000000a001'],
    }),
  ],
  layers: [{ name: 'chat', salt: 'layer-chat', bucket_count: 1_000 }],
  holdouts: [
    {
      id: '5d1e0000-0000-4000-8000-00000000a001',
      name: 'q4',
      salt: 'h-77c1',
      bucket_count: 10_000,
      ranges: [{ start: 0, end: 250 }],
    },
  ],
};

/** A client whose only "network" is this config, so the bench measures assign and nothing else. */
async function arbiterClient(trackExposures: boolean): Promise<Arbiter> {
  // The default queue (10,000 events): exposing every user goes through exposeAll's flushes.
  const client = new Arbiter({
    apiKey: 'svc_pk_bench',
    trackExposures,
    flushIntervalMs: 3_600_000,
    fetch: async (_url, init) =>
      init?.method === 'POST'
        ? new Response('{"accepted":0,"config_version":1}', { status: 202 })
        : new Response(JSON.stringify(config), { status: 200, headers: { etag: '"1"' } }),
  });
  if (!(await client.ready())) throw new Error('config not loaded');
  return client;
}

/**
 * Assigns every user once, flushing every 5,000 calls (half the default queue) so that the
 * exposures are delivered, not dropped: the steady state the exposures-on figures measure.
 */
async function exposeAll(client: Arbiter, ids: readonly string[]): Promise<void> {
  for (let at = 0; at < ids.length; at += 5_000) {
    const end = Math.min(at + 5_000, ids.length);
    for (let i = at; i < end; i++) client.assign(EXPERIMENT, ids[i] as string);
    await client.flush();
  }
  const stats = client.stats();
  if (stats.dropped !== 0 || stats.sent < ids.length) {
    throw new Error(`exposing ${ids.length} users: ${JSON.stringify(stats)}`);
  }
}

function growthBook(): GrowthBookClient {
  return new GrowthBookClient().initSync({
    payload: {
      features: {
        [EXPERIMENT]: {
          defaultValue: 'control',
          rules: [
            {
              key: EXPERIMENT,
              seed: 's-8f2a',
              hashAttribute: 'id',
              hashVersion: 2,
              coverage: 1,
              weights: [0.5, 0.5],
              variations: ['control', 'concise'],
            },
          ],
        },
      },
    },
  });
}

/**
 * Calls per second over the inputs, cycling, for about ROUND_MS. One loop per contender, not a
 * shared loop taking a callback: a shared call site would see every contender, turn
 * megamorphic and slow them all by the same few nanoseconds. The experiment is EXPERIMENT or
 * GATED (behind a holdout and in a layer): a string argument, the same call site.
 */
function roundArbiter(client: Arbiter, ids: readonly string[], experiment = EXPERIMENT): number {
  const mask = ids.length - 1;
  let calls = 0;
  let control = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < CHUNK; i++) {
      if (client.assign(experiment, ids[(calls + i) & mask] as string) === 'control') control++;
    }
    calls += CHUNK;
    now = performance.now();
  }
  keep(control);
  return calls / ((now - start) / 1_000);
}

/**
 * roundArbiter through the targeted experiment, user i with inputs[i]: plain attributes,
 * PreparedAttributes made before the rounds, or (perCall) plain attributes prepared on every call,
 * so that the construction's cost shows. One loop for the three: its call sites see the same
 * assign and the same constructor whichever runs, so none of them turns megamorphic.
 */
function roundArbiterTargeted(
  client: Arbiter,
  ids: readonly string[],
  inputs: readonly (Attributes | PreparedAttributes)[],
  perCall: boolean,
): number {
  const mask = ids.length - 1;
  let calls = 0;
  let control = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < CHUNK; i++) {
      const at = (calls + i) & mask;
      const input = inputs[at];
      const attributes = perCall ? new PreparedAttributes(input as Attributes) : input;
      if (client.assign(TARGETED, ids[at] as string, attributes) === 'control') control++;
    }
    calls += CHUNK;
    now = performance.now();
  }
  keep(control);
  return calls / ((now - start) / 1_000);
}

function roundGrowthBook(gb: GrowthBookClient, contexts: readonly UserContext[]): number {
  const mask = contexts.length - 1;
  let calls = 0;
  let control = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < CHUNK; i++) {
      const context = contexts[(calls + i) & mask] as UserContext;
      if (gb.evalFeature(EXPERIMENT, context).value === 'control') control++;
    }
    calls += CHUNK;
    now = performance.now();
  }
  keep(control);
  return calls / ((now - start) / 1_000);
}

function roundFloor(bucketOf: (userId: string) => number, ids: readonly string[]): number {
  const mask = ids.length - 1;
  let calls = 0;
  let control = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < CHUNK; i++) {
      if (bucketOf(ids[(calls + i) & mask] as string) < 5_000) control++;
    }
    calls += CHUNK;
    now = performance.now();
  }
  keep(control);
  return calls / ((now - start) / 1_000);
}

/** Uses a result so that no engine can discard the calls that made it. */
function keep(count: number): void {
  if (count < 0) console.log(count);
}

function controlShare<T>(inputs: readonly T[], call: (input: T) => unknown): number {
  return inputs.filter((input) => call(input) === 'control').length / inputs.length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number) => `${(n / 1e6).toFixed(2)} M/s`;

const userIds = (count: number) =>
  Array.from({ length: count }, (_, i) => `user-${i}-${(i * 2_654_435_761) >>> 0}`);

async function main(): Promise<void> {
  const ids = userIds(USERS);
  const bucketer = createBucketer('s-8f2a', 10_000);
  const contexts: UserContext[] = ids.map((id) => ({ attributes: { id } }));
  const attributes = ids.map((_, i) => attributesOf(i));
  const prepared = attributes.map((a) => new PreparedAttributes(a));
  const plain = await arbiterClient(false);
  const exposing = await arbiterClient(true);
  await exposeAll(exposing, ids);
  const gb = growthBook();

  type Contender = [name: string, round: () => number, controlShare: number];
  /** A contender through the targeted experiment (see roundArbiterTargeted), its share checked. */
  const targetedContender = (
    name: string,
    inputs: readonly (Attributes | PreparedAttributes)[],
    perCall: boolean,
  ): Contender => [
    name,
    () => roundArbiterTargeted(plain, ids, inputs, perCall),
    controlShare(
      ids.map((u, i) => [u, i] as const),
      ([u, i]) => {
        const input = inputs[i];
        return plain.assign(
          TARGETED,
          u,
          perCall ? new PreparedAttributes(input as Attributes) : input,
        );
      },
    ),
  ];
  const contenders: Contender[] = [
    [
      'Arbiter assign()',
      () => roundArbiter(plain, ids),
      controlShare(ids, (u) => plain.assign(EXPERIMENT, u)),
    ],
    [
      'Arbiter assign(), exposures on (users already exposed)',
      () => roundArbiter(exposing, ids),
      controlShare(ids, (u) => exposing.assign(EXPERIMENT, u)),
    ],
    [
      'floor: the bucket function alone',
      () => roundFloor(bucketer, ids),
      controlShare(ids, (u) => (bucketer(u) < 5_000 ? 'control' : 'concise')),
    ],
    [
      'plain bucketOf(salt, user) (whole key encoded per call)',
      () => roundFloor((u) => bucketOf('s-8f2a', u, 10_000), ids),
      controlShare(ids, (u) => (bucketOf('s-8f2a', u, 10_000) < 5_000 ? 'control' : 'concise')),
    ],
    [
      'GrowthBook evalFeature()',
      () => roundGrowthBook(gb, contexts),
      controlShare(contexts, (c) => gb.evalFeature(EXPERIMENT, c).value),
    ],
    targetedContender('Arbiter assign() with a 5-clause targeting condition', attributes, false),
    [
      'Arbiter assign() behind a holdout, in a layer',
      () => roundArbiter(plain, ids, GATED),
      controlShare(ids, (u) => plain.assign(GATED, u)),
    ],
    targetedContender('with the 5-clause condition, PreparedAttributes', prepared, false),
    targetedContender('PreparedAttributes built per call', attributes, true),
  ];
  for (const [name, , share] of contenders) {
    console.log(`${name}: control share ${(share * 100).toFixed(1)} %`);
  }
  // Warm-up, then interleaved rounds so that drift of the machine hits every contender alike.
  for (const [, run] of contenders) run();
  const rates = contenders.map(() => [] as number[]);
  const cpuRates = contenders.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    contenders.forEach(([, run], i) => {
      // On a loaded machine the process gets a fraction of a core: calls per CPU second (the
      // whole process's, GC threads included) say what the code costs, wall clock what it got.
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      const rate = run();
      const wall = (performance.now() - wallBefore) / 1_000;
      const cpu = process.cpuUsage(cpuBefore);
      rates[i]?.push(rate);
      cpuRates[i]?.push((rate * wall) / ((cpu.user + cpu.system) / 1e6));
    });
  }

  const medians = rates.map(median);
  console.log(`\nnode ${process.version}, ${ROUNDS} rounds of ${ROUND_MS} ms, ${USERS} users`);
  contenders.forEach(([name], i) => {
    const xs = rates[i] ?? [];
    console.log(
      `${name.padEnd(56)} median ${fmt(medians[i] ?? 0)}  (min ${fmt(Math.min(...xs))}, max ${fmt(Math.max(...xs))}), per CPU second ${fmt(median(cpuRates[i] ?? []))}`,
    );
  });
  const [arbiter, withExposures, floor, plainBucketOf, growthbook, targeted, gated] = medians as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  console.log(`\nArbiter / GrowthBook: ${(arbiter / growthbook).toFixed(1)}x`);
  console.log(`Arbiter (exposures on) / GrowthBook: ${(withExposures / growthbook).toFixed(1)}x`);
  console.log(`Arbiter / floor (bucket function alone): ${(arbiter / floor).toFixed(2)}`);
  console.log(`bucket function / plain bucketOf: ${(floor / plainBucketOf).toFixed(2)}x`);
  console.log(
    `Arbiter with 5-clause targeting / without: ${(targeted / arbiter).toFixed(2)} (goal >= 0.5); by CPU second ${((cpuRates[5] ? median(cpuRates[5]) : 0) / median(cpuRates[0] ?? [])).toFixed(2)}`,
  );
  const cpu = cpuRates.map(median);
  console.log(
    `Arbiter behind a holdout, in a layer / without: ${(gated / arbiter).toFixed(2)}; by CPU second ${((cpu[6] ?? 0) / (cpu[0] ?? 1)).toFixed(2)}`,
  );
  const byCpu = (i: number) => ((cpu[i] ?? 0) / (cpu[0] ?? 1)).toFixed(2);
  const byWall = (i: number) => ((medians[i] ?? 0) / arbiter).toFixed(2);
  console.log(
    `5-clause / without, by CPU second: plain object ${byCpu(5)}, PreparedAttributes ${byCpu(7)}, built per call ${byCpu(8)} (goal >= 0.5); by wall clock ${byWall(5)}, ${byWall(7)}, ${byWall(8)}`,
  );
  console.log(
    `by CPU second: Arbiter ${fmt(cpu[0] ?? 0)} (goal >= 10 M/s), Arbiter / GrowthBook ${((cpu[0] ?? 0) / (cpu[4] ?? 1)).toFixed(1)}x (goal >= 10x), Arbiter / floor ${((cpu[0] ?? 0) / (cpu[2] ?? 1)).toFixed(2)}`,
  );
  console.log(
    `exposures on: ${exposing.stats().sent} exposures delivered, ${exposing.stats().dropped} dropped`,
  );
  await Promise.all([plain.close(), exposing.close()]);
}

/** CPU time of this process, in seconds (every thread: the GC's included). */
function cpuSeconds(): number {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1e6;
}

/** Memory now, in MiB, after a full collection when node runs with --expose-gc. */
function memoryMiB(): { heap: number; arrayBuffers: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mib = (n: number) => n / 1_048_576;
  return { heap: mib(m.heapUsed), arrayBuffers: mib(m.arrayBuffers), rss: mib(m.rss) };
}

/**
 * ns per assign() at 1x, 4x, 16x and 64x the users, by wall clock and by CPU second, exposures
 * off and on (every user exposed first, and delivered). Without exposures the hash costs the
 * same per call, so growth is the memory the users outgrow; with them, the exposure table's.
 * The goal at 1,048,576 users: on / off >= 0.5, by CPU second.
 */
async function scaleCurve(): Promise<void> {
  console.log(
    '\nscale curve: users | ns/assign off, wall / CPU | ns/assign on (all exposed), wall / CPU | on/off by CPU | table memory: arrayBuffers / heap / RSS growth | exposures sent, dropped',
  );
  for (const factor of [1, 4, 16, 64]) {
    const ids = userIds(USERS * factor);
    const off = await arbiterClient(false);
    const before = memoryMiB();
    const on = await arbiterClient(true);
    await exposeAll(on, ids);
    const after = memoryMiB();
    // Warm both paths before the measured rounds.
    roundArbiter(off, ids);
    roundArbiter(on, ids);
    const wall: [number[], number[]] = [[], []];
    const cpu: [number[], number[]] = [[], []];
    for (let r = 0; r < 3; r++) {
      [off, on].forEach((client, k) => {
        const cpuBefore = cpuSeconds();
        const wallBefore = performance.now();
        const rate = roundArbiter(client, ids);
        const wallSeconds = (performance.now() - wallBefore) / 1_000;
        wall[k]?.push(1e9 / rate);
        cpu[k]?.push((1e9 * (cpuSeconds() - cpuBefore)) / (rate * wallSeconds));
      });
    }
    const [offWall, onWall, offCpu, onCpu] = [
      median(wall[0]),
      median(wall[1]),
      median(cpu[0]),
      median(cpu[1]),
    ];
    const stats = on.stats();
    console.log(
      `${String(factor).padStart(3)}x ${String(ids.length).padStart(8)} | ${offWall.toFixed(0).padStart(4)} / ${offCpu.toFixed(0).padStart(4)} ns | ${onWall.toFixed(0).padStart(4)} / ${onCpu.toFixed(0).padStart(4)} ns | ${(offCpu / onCpu).toFixed(2)} | +${(after.arrayBuffers - before.arrayBuffers).toFixed(1)} / +${(after.heap - before.heap).toFixed(1)} / +${(after.rss - before.rss).toFixed(1)} MiB | ${stats.sent}, ${stats.dropped}`,
    );
    if (stats.dropped !== 0) throw new Error(`events dropped: ${JSON.stringify(stats)}`);
    await Promise.all([off.close(), on.close()]);
  }
}

if (process.env.BENCH_ONLY_SCALE !== '1') await main();
if (process.env.BENCH_SCALE !== '0') await scaleCurve();
