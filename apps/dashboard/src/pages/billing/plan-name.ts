const PLAN_NAMES: Record<string, string> = {
  free: 'Free',
  pro: 'Pro',
  business: 'Business',
  enterprise: 'Enterprise',
};

/** A plan value (free, pro, business, enterprise: docs/decisions/identity-and-billing.md#the-plans-table) as a person reads it. */
export const planName = (plan: string) => PLAN_NAMES[plan] ?? plan;
