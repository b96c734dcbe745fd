import { hashUser } from '@arbiter/bucketing';

/**
 * What `arbiter demo` seeds: two experiments of a made-up support assistant, with simulated
 * users whose behaviour is a pure function of their id (hashed, so a re-run sends the very same
 * events and the demo stays idempotent).
 */
export const DEMO_ORG = 'arbiter-demo';
export const DEMO_EMAIL = 'demo@example.com';

/** The create body of an experiment (POST /v1/experiments). */
export interface DemoExperimentConfig {
  name: string;
  salt: string;
  bucket_count: number;
  allocation: { variant: string; weight: number }[];
  variants: { key: string; prompt?: string; variables?: Record<string, unknown> }[];
  metrics: ReturnType<typeof metric>[];
}

const metric = (name: string, kind: string, method: string, category: string) => ({
  name,
  kind,
  category,
  method_default: method,
  metric_version: 1,
  shared_org_wide: false,
});

/** An experiment salted with its name, over 10,000 buckets, its variants weighted equally. */
function demoExperiment(
  name: string,
  variants: DemoExperimentConfig['variants'],
  metrics: DemoExperimentConfig['metrics'],
): DemoExperimentConfig {
  const weight = 100 / variants.length;
  return {
    name,
    salt: name,
    bucket_count: 10_000,
    allocation: variants.map(({ key }) => ({ variant: key, weight })),
    variants,
    metrics,
  };
}

/** A real effect: the concise prompt converts better; latency does not move (a null). */
export const CHECKOUT = demoExperiment(
  'demo-checkout-prompt',
  [
    {
      key: 'control',
      prompt: 'You are a helpful shopping assistant.',
      variables: { temperature: 0.7 },
    },
    {
      key: 'concise',
      prompt: 'You are a shopping assistant. Answer in two sentences and end with the next step.',
      variables: { temperature: 0.3 },
    },
  ],
  [
    metric('checkout', 'conversion', 'two_proportion_z', 'primary'),
    metric('latency', 'latency', 'welch_t', 'guardrail'),
    metric('tokens', 'tokens', 'welch_t', 'secondary'),
  ],
);

/** Too little traffic so far: it shows the collecting state. No effect either way. */
export const ONBOARDING = demoExperiment(
  'demo-onboarding-tone',
  [
    { key: 'control', prompt: 'Explain the next onboarding step.' },
    { key: 'friendly', prompt: 'Warmly explain the next onboarding step, with an example.' },
  ],
  [
    metric('activated', 'conversion', 'two_proportion_z', 'primary'),
    metric('latency', 'latency', 'welch_t', 'guardrail'),
  ],
);

/**
 * A number in [0, 1) from a user id and a purpose: the same every run. The prefix picks one
 * fixed draw of the simulated population (one where the null metrics look like nulls usually
 * do, rather than a 1-in-20 near miss that would distract from the planted effect).
 */
function unit(purpose: string, userId: string): number {
  return hashUser(`demo-sim-1-${purpose}`, userId) / 2 ** 32;
}

/** A normal draw (Box–Muller) from two such numbers. */
function normal(purpose: string, userId: string, mean: number, sd: number): number {
  const u = Math.max(unit(`${purpose}-u`, userId), 1e-12);
  const v = unit(`${purpose}-v`, userId);
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface SimulatedUser {
  userId: string;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  converted: boolean;
}

/** Conversion rates per variant: the only real difference the demo plants. */
const CONVERSION: Record<string, Record<string, number>> = {
  [CHECKOUT.name]: { control: 0.1, concise: 0.16 },
  [ONBOARDING.name]: { control: 0.3, friendly: 0.3 },
};

export function simulateUser(experiment: string, userId: string, variant: string): SimulatedUser {
  const rate = CONVERSION[experiment]?.[variant] ?? 0;
  return {
    userId,
    latencyMs: Math.max(50, Math.round(normal('latency', userId, 900, 200))),
    inputTokens: Math.max(1, Math.round(normal('input', userId, 400, 60))),
    outputTokens: Math.max(1, Math.round(normal('output', userId, 120, 30))),
    converted: unit('convert', userId) < rate,
  };
}
