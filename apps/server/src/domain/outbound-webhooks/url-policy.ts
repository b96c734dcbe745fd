import { DomainError } from '../outcomes.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

const isLoopback = (host: string) => LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * An endpoint URL: `https` anywhere, or `http` to a loopback host only (a receiver on the same
 * machine, as in tests and local set-ups); no credentials in the URL, no fragment.
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
  if (url.protocol === 'https:') return url.toString();
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url.toString();
  throw new DomainError(
    'webhook-url-refused',
    `The URL must use https (http only to a loopback host); got ${url.protocol}//${url.hostname}`,
  );
}
