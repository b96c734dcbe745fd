/**
 * Production sign-in hook (docs/decisions/dashboard.md#serving-and-sign-in): the identity provider's
 * hosted sign-in page is at VITE_ARBITER_SIGN_IN_URL (set when building the dashboard); after
 * sign-in it redirects the browser to `<dashboard>/auth/callback#token=<session JWT>`. The
 * fragment never reaches a server log. The JWT is then used exactly like a development token.
 */
export const SIGN_IN_URL: string | undefined = import.meta.env.VITE_ARBITER_SIGN_IN_URL;

export function signInHref(): string | null {
  if (!SIGN_IN_URL) return null;
  const url = new URL(SIGN_IN_URL);
  url.searchParams.set('redirect_url', `${window.location.origin}/auth/callback`);
  return url.toString();
}

export function tokenFromCallback(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token');
}
