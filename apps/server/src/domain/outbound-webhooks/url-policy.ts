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

/** Slack's incoming webhooks live under this host. */
export const SLACK_WEBHOOK_HOST = 'hooks.slack.com';

/**
 * A Slack endpoint's URL: an endpoint URL that is a Slack incoming webhook
 * (`https://hooks.slack.com/…`); where the deployment allows private addresses (self-hosted and
 * test set-ups), any endpoint URL, so a test receiver can stand in for Slack.
 */
export function checkSlackUrl(raw: string, allowPrivate: boolean): string {
  const checked = checkEndpointUrl(raw, allowPrivate);
  if (allowPrivate || new URL(checked).hostname === SLACK_WEBHOOK_HOST) return checked;
  throw refused(
    `A slack endpoint takes a Slack incoming-webhook URL (https://${SLACK_WEBHOOK_HOST}/…)`,
  );
}

/** The check of an endpoint's URL by its kind. */
export const checkUrlOfKind = (kind: string, raw: string, allowPrivate: boolean) =>
  kind === 'slack' ? checkSlackUrl(raw, allowPrivate) : checkEndpointUrl(raw, allowPrivate);
