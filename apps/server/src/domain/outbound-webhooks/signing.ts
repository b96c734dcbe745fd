import { Webhook } from 'standardwebhooks';

/** One secret's `v1,<base64>` over `id.timestamp.body`, by the Standard Webhooks library. */
const signatureOf = (secret: string, id: string, at: Date, body: string) =>
  new Webhook(secret).sign(id, at, body);

/**
 * The Standard Webhooks headers of one attempt. Each secret adds a signature, space-separated;
 * a receiver holding either secret verifies.
 */
export function signedHeaders(secrets: string[], id: string, at: Date, body: string) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => signatureOf(s, id, at, body)).join(' '),
  };
}
