/** The Kafka path's components the per-process model covers. */
export const KAFKA_COMPONENTS = ['api', 'brokers', 'fold', 'postgres'] as const;
export type KafkaComponent = (typeof KAFKA_COMPONENTS)[number];

/**
 * The Kafka path's model, per component: CPU ms a second = E · perEventUs / 1000 + A ·
 * perApiProcessMs + W · perFoldWorkerMs + sharedMs, at E events a second with A API processes
 * and W fold workers (one partition each). `sharedMs` is what the one broker and the PostgreSQL
 * server spend idle; the per-process terms hold each process's idle CPU and what it spends a
 * second whatever the rate (a fold transaction a second per worker, a fetch loop per consumer).
 */
export interface KafkaModel {
  perEventUs: Record<KafkaComponent, number>;
  perApiProcessMs: Record<KafkaComponent, number>;
  perFoldWorkerMs: Record<KafkaComponent, number>;
  sharedMs: Record<KafkaComponent, number>;
}

/** One measured Kafka deployment: its processes, its rate and each component's CPU a second. */
export interface KafkaObservation {
  apis: number;
  foldWorkers: number;
  eventsPerSecond: number;
  /** CPU µs per event, all CPU, by component. */
  cpuPerEventUs: Partial<Record<string, number>>;
}

/** Solves the normal equations of a least-squares fit (three unknowns): Gauss–Jordan. */
function leastSquares(rows: number[][], ys: number[]): number[] {
  const n = rows[0]?.length ?? 0;
  const a = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (_, j) =>
      rows.reduce((s, r) => s + (r[i] as number) * (r[j] as number), 0),
    ),
    rows.reduce((s, r, k) => s + (r[i] as number) * (ys[k] as number), 0),
  ]);
  for (let col = 0; col < n; col++) {
    const pivot = a.slice(col).reduce((best, r, k) => {
      const bestRow = a[best] as number[];
      return Math.abs(r[col] as number) > Math.abs(bestRow[col] as number) ? col + k : best;
    }, col);
    [a[col], a[pivot]] = [a[pivot] as number[], a[col] as number[]];
    const p = (a[col] as number[])[col] as number;
    if (Math.abs(p) < 1e-12)
      throw new Error('the fit needs shapes that differ in API processes and fold workers');
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = ((a[r] as number[])[col] as number) / p;
      a[r] = (a[r] as number[]).map((v, j) => v - f * ((a[col] as number[])[j] as number));
    }
  }
  return a.map((r, i) => (r[n] as number) / (r[i] as number));
}

const residual = (rows: number[][], ys: number[], x: number[]) =>
  rows.reduce((sum, r, k) => {
    const e = r.reduce((acc, v, j) => acc + v * (x[j] as number), 0) - (ys[k] as number);
    return sum + e * e;
  }, 0);

/**
 * Least squares with the per-process terms (columns 1 and 2) at least 0: a process cannot give
 * CPU back. Every choice of the terms held at 0 is solved, and the best fit that keeps the others
 * at 0 or more is taken (two terms: four choices).
 */
function nonNegativeFit(rows: number[][], ys: number[]): number[] {
  let best: number[] | null = null;
  for (const free of [[0, 1, 2], [0, 1], [0, 2], [0]]) {
    const solved = leastSquares(
      rows.map((r) => free.map((j) => r[j] as number)),
      ys,
    );
    const x = [0, 0, 0];
    free.forEach((j, k) => {
      x[j] = solved[k] as number;
    });
    if ((x[1] as number) < 0 || (x[2] as number) < 0) continue;
    if (best === null || residual(rows, ys, x) < residual(rows, ys, best)) best = x;
  }
  return best ?? [0, 0, 0];
}

/**
 * Fits the model on Kafka deployments that differ in API processes and fold workers (e.g.
 * 1/1/1, 2/1/1 and 1/3/3, every round of each one an observation): for each component, least
 * squares over its CPU a second less the shared idle, in the three unknowns per event, per API
 * process and per fold worker, the last two at least 0.
 */
export function fitKafkaModel(
  observations: readonly KafkaObservation[],
  sharedMs: Record<KafkaComponent, number>,
): KafkaModel {
  const rows = observations.map((o) => [o.eventsPerSecond / 1000, o.apis, o.foldWorkers]);
  const model: KafkaModel = {
    perEventUs: { api: 0, brokers: 0, fold: 0, postgres: 0 },
    perApiProcessMs: { api: 0, brokers: 0, fold: 0, postgres: 0 },
    perFoldWorkerMs: { api: 0, brokers: 0, fold: 0, postgres: 0 },
    sharedMs,
  };
  for (const c of KAFKA_COMPONENTS) {
    const ys = observations.map(
      (o) => ((o.cpuPerEventUs[c] ?? 0) * o.eventsPerSecond) / 1000 - sharedMs[c],
    );
    const [perEvent, perApi, perFold] = nonNegativeFit(rows, ys);
    model.perEventUs[c] = perEvent as number;
    model.perApiProcessMs[c] = perApi as number;
    model.perFoldWorkerMs[c] = perFold as number;
  }
  return model;
}

/** The model's CPU µs per event of each component at a rate, with A API processes and W fold workers. */
export function kafkaCpuPerEvent(
  model: KafkaModel,
  shape: { apis: number; foldWorkers: number },
  eventsPerSecond: number,
): Record<KafkaComponent, number> {
  const out = { api: 0, brokers: 0, fold: 0, postgres: 0 };
  for (const c of KAFKA_COMPONENTS) {
    const perSecondMs =
      shape.apis * model.perApiProcessMs[c] +
      shape.foldWorkers * model.perFoldWorkerMs[c] +
      model.sharedMs[c];
    out[c] = model.perEventUs[c] + (perSecondMs * 1000) / eventsPerSecond;
  }
  return out;
}
