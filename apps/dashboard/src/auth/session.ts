import { useSyncExternalStore } from 'react';

/**
 * The session JWT lives in sessionStorage: it leaves with the tab, and every request reads it
 * from here. Sign-in (development form or the identity provider's callback) puts it here.
 */
const KEY = 'arbiter.session';
const listeners = new Set<() => void>();

export function sessionToken(): string | null {
  return window.sessionStorage.getItem(KEY);
}

export function setSession(token: string): void {
  window.sessionStorage.setItem(KEY, token);
  for (const l of listeners) l();
}

export function clearSession(): void {
  if (sessionToken() === null) return;
  window.sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSessionToken(): string | null {
  return useSyncExternalStore(subscribe, sessionToken);
}
