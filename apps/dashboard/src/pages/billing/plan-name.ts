const PLAN_NAMES: Record<string, string> = {
  free: 'Free',
  pro: 'Pro',
  business: 'Business',
  enterprise: 'Enterprise',
};

/** A plan value (SPEC §2: free, pro, business, enterprise) as a person reads it. */
export const planName = (plan: string) => PLAN_NAMES[plan] ?? plan;
