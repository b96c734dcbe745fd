/** The one table of plan limits (docs/decisions/identity-and-billing.md#the-plans-table); every limit in the product reads it from here. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimit {
  plan: Plan;
  monthly_event_allowance: number;
  monthly_judge_allowance: number;
  /** Plans that bill overage keep accepting past the allowance. */
  bills_overage: boolean;
  retention_days: number;
  max_permutations: number;
  max_sample_per_arm: number;
  /** null = unlimited or by contract. */
  seats: number | null;
}

export const PLAN_LIMITS: Record<Plan, PlanLimit> = {
  free: {
    plan: 'free',
    monthly_event_allowance: 50_000,
    monthly_judge_allowance: 0,
    bills_overage: false,
    retention_days: 7,
    max_permutations: 1_000,
    max_sample_per_arm: 10_000,
    seats: 5,
  },
  pro: {
    plan: 'pro',
    monthly_event_allowance: 1_000_000,
    monthly_judge_allowance: 50_000,
    bills_overage: true,
    retention_days: 30,
    max_permutations: 10_000,
    max_sample_per_arm: 100_000,
    seats: 100,
  },
  business: {
    plan: 'business',
    monthly_event_allowance: 10_000_000,
    monthly_judge_allowance: 500_000,
    bills_overage: true,
    retention_days: 90,
    max_permutations: 100_000,
    max_sample_per_arm: 1_000_000,
    seats: null,
  },
  enterprise: {
    plan: 'enterprise',
    monthly_event_allowance: 100_000_000,
    monthly_judge_allowance: 5_000_000,
    bills_overage: true,
    retention_days: 365,
    max_permutations: 100_000,
    max_sample_per_arm: 1_000_000,
    seats: null,
  },
};

export function planOf(value: string): Plan {
  return (PLANS as readonly string[]).includes(value) ? (value as Plan) : 'free';
}

/** Members an org of this plan may have; null = unlimited (business) or by contract (enterprise). */
export function seatCap(plan: Plan): number | null {
  return PLAN_LIMITS[plan].seats;
}

/** Orders plans from least to most: when two subscriptions grant a plan, the higher wins. */
export function planRank(plan: Plan): number {
  return PLANS.indexOf(plan);
}
