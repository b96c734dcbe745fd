import { DomainError } from '../outcomes.ts';
import { ipLiteralOf, isPublicAddress } from './address-policy.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/** A host on this machine, as the URL spells it: a receiver for tests and local set-ups. */
export const isLoopbackHost = (host: string) =>
  LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * An endpoint URL: `https` anywhere, or `http` to a loopback host only (a receiver on the same
 * machine, as in tests and local set-ups); no credentials in the URL, no fragment; an IP
 * literal must be public (a name is judged by what it resolves to, when each event is sent).
 */
export function checkEndpointUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('webhook-url-refused', `${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (url.username !== '' || url.password !== '')
    throw new DomainError('webhook-url-refused', 'The URL must not carry credentials');
  if (url.hash !== '')
    throw new DomainError('webhook-url-refused', 'The URL must not carry a fragment');
  const loopback = isLoopbackHost(url.hostname);
  const literal = ipLiteralOf(url.hostname);
  if (!loopback && literal !== null && !isPublicAddress(literal)) {
    throw new DomainError(
      'webhook-url-refused',
      `${literal} is not a public address: private, link-local and metadata addresses are refused`,
    );
  }
  if (url.protocol === 'https:') return url.toString();
  if (url.protocol === 'http:' && loopback) return url.toString();
  throw new DomainError(
    'webhook-url-refused',
    `The URL must use https (http only to a loopback host); got ${url.protocol}//${url.hostname}`,
  );
}
