import { DomainError } from '../outcomes.ts';
import { ipLiteralOf, isPublicAddress } from './address-policy.ts';

const refused = (detail: string) => new DomainError('webhook-url-refused', detail);

/** A name that always means this machine (RFC 6761 reserves `localhost` and its subdomains). */
const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * An endpoint URL: no credentials in it, no fragment. Unless the deployment allows private
 * addresses (self-hosted and test set-ups), it is `https` and names no loopback host and no IP
 * literal that is not public; a name is judged by what it resolves to, when each event is sent.
 */
export function checkEndpointUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(`${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (url.username !== '' || url.password !== '')
    throw refused('The URL must not carry credentials');
  if (url.hash !== '') throw refused('The URL must not carry a fragment');
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw refused(
      `The URL must use https; got ${url.protocol}//${url.hostname} (http only where the server sets ARBITER_WEBHOOKS_ALLOW_PRIVATE)`,
    );
  }
  if (allowPrivate) return url.toString();
  const literal = ipLiteralOf(url.hostname);
  if (isLoopbackName(url.hostname) || (literal !== null && !isPublicAddress(literal))) {
    throw refused(
      `${url.hostname} is not a public address: loopback, private, link-local and metadata addresses are refused`,
    );
  }
  return url.toString();
}
