import { useMutation } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';

/** This month's usage, and whether this server enforces the plan's limits. */
export const useUsage = queryHook(
  () => ['usage'],
  () => ok(api.GET('/v1/usage')),
);

export const useBillingSummary = queryHook(
  () => ['billing-summary'],
  () => ok(api.GET('/v1/billing/summary')),
);

/** The hosted pages send the user back here; the server adds `checkout=success|cancelled`. */
const returnUrl = () => `${window.location.origin}/billing`;

/**
 * Checkout and portal are pages of the billing provider: the dashboard asks the server for a
 * one-time URL and leaves for it. No card data ever passes through Arbiter.
 */
export function useHostedPage() {
  const go = (url: string) => window.location.assign(url);
  const checkout = useMutation({
    mutationFn: (plan: 'pro' | 'business') =>
      ok(api.POST('/v1/billing/checkout-session', { body: { plan, return_url: returnUrl() } })),
    onSuccess: ({ url }) => go(url),
  });
  const portal = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/billing/portal-session', { body: { return_url: returnUrl() } })),
    onSuccess: ({ url }) => go(url),
  });
  return { checkout, portal };
}
