import type { Plan } from '../plans/plans.ts';

/** The billing provider's price id of each plan sold through checkout; null when unset. */
export interface PlanPrices {
  pro: string | null;
  business: string | null;
}

export type PaidPlan = keyof PlanPrices;

/** The plan a subscription's price stands for; null for a price that is none of ours. */
export function planOfPrice(prices: PlanPrices, priceId: string | null): Plan | null {
  if (priceId === null) return null;
  if (priceId === prices.pro) return 'pro';
  if (priceId === prices.business) return 'business';
  return null;
}
