import { useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ProblemView } from '../../components/states.tsx';
import { planName } from '../billing/plan-name.ts';
import { adminKeys } from './queries.ts';

const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
type Plan = (typeof PLANS)[number];

/** Pins an org's plan over whatever billing says (audited), or clears the pin (`null`). */
export function PlanOverrideForm({ orgId, override }: { orgId: string; override: Plan | null }) {
  const [plan, setPlan] = useState<Plan>(override ?? 'pro');
  const save = useRefreshingMutation(
    (next: Plan | null) =>
      ok(
        api.PUT('/v1/admin/orgs/{id}/plan-override', {
          params: { path: { id: orgId } },
          body: { plan: next },
        }),
      ),
    adminKeys.all,
  );
  return (
    <section className="card" aria-label="Plan override">
      <h2>Plan override</h2>
      <p>
        {override
          ? `Pinned to ${planName(override)}: billing webhooks cannot change it.`
          : 'No override: the plan follows billing.'}
      </p>
      <div className="row">
        <label>
          Plan to pin
          <select value={plan} onChange={(e) => setPlan(e.target.value as Plan)}>
            {PLANS.map((p) => (
              <option key={p} value={p}>
                {planName(p)}
              </option>
            ))}
          </select>
        </label>
        <ConfirmButton
          label="Pin plan"
          question={`Pin this org to ${planName(plan)}? Billing will no longer change its plan.`}
          confirmLabel="Yes, pin"
          onConfirm={() => save.mutate(plan)}
          disabled={save.isPending}
        />
        {override ? (
          <ConfirmButton
            label="Clear override"
            question="Clear the pin? The plan falls back to the org's billing state."
            confirmLabel="Yes, clear"
            onConfirm={() => save.mutate(null)}
            disabled={save.isPending}
          />
        ) : null}
      </div>
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      {save.error ? <ProblemView error={save.error} /> : null}
    </section>
  );
}
