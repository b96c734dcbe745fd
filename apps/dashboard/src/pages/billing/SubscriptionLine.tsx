import type { BillingSummary } from '../../api/client.ts';

const day = (iso: string) => new Date(iso).toLocaleDateString();

/** Where the plan comes from and what happens at the end of the paid period. */
export function SubscriptionLine({ summary: s }: { summary: BillingSummary }) {
  const source =
    s.plan_source === 'override'
      ? 'Set by the platform owner'
      : s.plan_source === 'billing'
        ? 'From your subscription'
        : 'No paid subscription';
  return (
    <p data-testid="subscription">
      {source}
      {s.subscription_status ? ` · subscription ${s.subscription_status}` : ''}
      {s.current_period_end
        ? s.cancel_at_period_end
          ? ` · ends ${day(s.current_period_end)}, then back to Free (experiments are kept)`
          : ` · current period ends ${day(s.current_period_end)}`
        : ''}
    </p>
  );
}
