import { createRng, type Rng } from '../../src/rng.ts';

/** Seeded draws for the oracle data sets; reproducible so a failing case can be replayed. */
export class Draw {
  private readonly rng: Rng;
  private spare: number | null = null;

  constructor(seed: number) {
    this.rng = createRng(seed);
  }

  /** Uniform in [0, 1) with 53 random bits. */
  uniform(): number {
    const a = this.rng.nextUint32() >>> 5;
    const b = this.rng.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  int(lo: number, hi: number): number {
    return lo + this.rng.nextInt(hi - lo + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.rng.nextInt(items.length)] as T;
  }

  /** Box–Muller; the second variate is kept for the next call. */
  normal(mean = 0, sd = 1): number {
    if (this.spare !== null) {
      const z = this.spare;
      this.spare = null;
      return mean + sd * z;
    }
    let u = 0;
    while (u === 0) u = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(theta);
    return mean + sd * r * Math.cos(theta);
  }

  lognormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  /** Knuth's product method for small λ, a rounded normal approximation past 500. */
  poisson(lambda: number): number {
    if (lambda > 500) return Math.max(0, Math.round(this.normal(lambda, Math.sqrt(lambda))));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.uniform();
    while (p > limit) {
      k++;
      p *= this.uniform();
    }
    return k;
  }

  bernoulli(p: number): number {
    return this.uniform() < p ? 1 : 0;
  }

  many(n: number, f: () => number): number[] {
    return Array.from({ length: n }, f);
  }
}

export type DatasetKind = 'normal' | 'latency' | 'tokens' | 'conversion' | 'revenue';

export interface Dataset {
  name: string;
  kind: DatasetKind;
  control: number[];
  treatment: number[];
}

export const DATASET_KINDS: DatasetKind[] = [
  'normal',
  'latency',
  'tokens',
  'conversion',
  'revenue',
];

/** The seed of the scipy oracle's data sets (test/oracle.test.ts). */
export const ORACLE_SEED = 20240917;

/** The scipy oracle's data sets: `rounds` of every kind, drawn in a fixed order from `d`. */
export function oracleDatasets(d: Draw, rounds = 60): Dataset[] {
  const out: Dataset[] = [];
  for (let i = 0; i < rounds; i++) for (const kind of DATASET_KINDS) out.push(dataset(d, kind, i));
  return out;
}

/** One two-arm data set shaped like a metric the pipeline analyses; effect sometimes zero. */
export function dataset(d: Draw, kind: DatasetKind, index: number): Dataset {
  const nC = d.int(20, 600);
  const nT = d.pick([nC, d.int(20, 600)]);
  const lift = d.pick([0, 0, 0.02, 0.1, 0.3]);
  let control: number[];
  let treatment: number[];
  switch (kind) {
    case 'normal': {
      const sdC = d.pick([1, 15, 250]);
      const sdT = sdC * d.pick([1, 1, 0.5, 2]);
      control = d.many(nC, () => d.normal(100, sdC));
      treatment = d.many(nT, () => d.normal(100 * (1 + lift), sdT));
      break;
    }
    case 'latency': {
      const sigma = d.pick([0.4, 0.8, 1.2]);
      control = d.many(nC, () => Math.round(d.lognormal(Math.log(300), sigma) * 10) / 10);
      treatment = d.many(
        nT,
        () => Math.round(d.lognormal(Math.log(300 * (1 + lift)), sigma) * 10) / 10,
      );
      break;
    }
    case 'tokens': {
      const lambda = d.pick([3, 40, 400, 900]);
      control = d.many(nC, () => d.poisson(lambda));
      treatment = d.many(nT, () => d.poisson(lambda * (1 + lift)));
      break;
    }
    case 'conversion': {
      const p = 0.01 + 0.04 * d.uniform();
      const scale = d.int(3, 10);
      control = d.many(nC * scale, () => d.bernoulli(p));
      treatment = d.many(nT * scale, () => d.bernoulli(Math.min(1, p * (1 + lift))));
      break;
    }
    case 'revenue': {
      const zero = d.pick([0.8, 0.9, 0.97]);
      const value = (m: number) =>
        d.uniform() < zero ? 0 : Math.round(d.lognormal(Math.log(m), 1) * 100) / 100;
      control = d.many(nC, () => value(20));
      treatment = d.many(nT, () => value(20 * (1 + lift)));
      break;
    }
  }
  return {
    name: `${kind} #${index} (n ${control.length}/${treatment.length}, lift ${lift})`,
    kind,
    control,
    treatment,
  };
}

export interface CovariateArm {
  /** The metric over the analysis window. */
  y: number[];
  /** The same metric over the pre-period; null for users without pre-period data. */
  x: (number | null)[];
}

export interface CovariateDataset {
  name: string;
  control: CovariateArm;
  treatment: CovariateArm;
}

/**
 * A CUPED data set: each user has a latent level that drives both the pre-period value x and
 * the in-experiment value y, so x predicts y with a chosen strength; some users have no
 * pre-period data (new users), and the treatment may shift y.
 */
export function covariateDataset(d: Draw, index: number): CovariateDataset {
  const nC = d.int(30, 2000);
  const nT = d.pick([nC, d.int(30, 2000)]);
  const shape = d.pick(['normal', 'revenue', 'counts'] as const);
  const signal = d.pick([0, 0.3, 0.8, 0.95]);
  const coverage = d.pick([1, 0.9, 0.6]);
  const lift = d.pick([0, 0.02, 0.1]);
  const arm = (n: number, shiftBy: number): CovariateArm => {
    const y: number[] = [];
    const x: (number | null)[] = [];
    for (let i = 0; i < n; i++) {
      const level = d.normal(0, 1);
      const noise = () => signal * level + Math.sqrt(1 - signal * signal) * d.normal(0, 1);
      let pre: number;
      let post: number;
      switch (shape) {
        case 'normal':
          pre = 100 + 15 * noise();
          post = 100 * (1 + shiftBy) + 15 * noise();
          break;
        case 'revenue':
          pre = Math.round(Math.exp(3 + 0.8 * noise()) * 100) / 100;
          post = Math.round(Math.exp(3 + 0.8 * noise()) * (1 + shiftBy) * 100) / 100;
          break;
        case 'counts':
          pre = Math.max(0, Math.round(20 + 6 * noise()));
          post = Math.max(0, Math.round(20 * (1 + shiftBy) + 6 * noise()));
          break;
      }
      y.push(post);
      x.push(d.uniform() < coverage ? pre : null);
    }
    return { y, x };
  };
  return {
    name: `cuped ${shape} #${index} (n ${nC}/${nT}, signal ${signal}, coverage ${coverage}, lift ${lift})`,
    control: arm(nC, 0),
    treatment: arm(nT, lift),
  };
}
