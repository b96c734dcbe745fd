import type { Usage } from '../../api/client.ts';
import { planName } from './plan-name.ts';

const SETTING = 'ARBITER_ENFORCE_LIMITS';

/**
 * Whether this server applies the plan's allowances, and the setting that changes it
 * (docs/decisions/identity-and-billing.md#where-plan-limits-apply): unset, limits apply only where billing is
 * configured.
 */
export function LimitsNote({ usage }: { usage: Usage }) {
  const plan = planName(usage.plan);
  return usage.enforced ? (
    <p className="note" data-testid="limits">
      Plan limits are enforced on this server:{' '}
      {usage.overage_billed
        ? `use past the ${plan} plan's allowance is billed as overage.`
        : `past the ${plan} plan's allowance, events are refused until the month resets.`}{' '}
      The setting <code>{SETTING}=false</code> turns them off; unset, they apply only where billing
      is configured.
    </p>
  ) : (
    <p className="note" data-testid="limits">
      Plan limits are not enforced on this server: events are counted but never refused, whatever
      the plan. The setting <code>{SETTING}=true</code> applies the {plan} plan's allowances; unset,
      they apply only where billing is configured.
    </p>
  );
}
