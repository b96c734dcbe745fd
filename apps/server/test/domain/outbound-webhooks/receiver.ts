import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Value } from 'typebox/value';
import { expect } from 'vitest';
import { eventBodySchema } from '../../../src/domain/outbound-webhooks/event-schemas.ts';
import { isWebhookEventType } from '../../../src/domain/outbound-webhooks/event-types.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Where a signed event's body departs from the schema the OpenAPI document gives its type
 * (`webhooks`): one line per error, none when it conforms. A body that is no event (a Slack
 * message, a unit test's own) is not judged here.
 */
export function schemaErrorsOf(got: Received): string[] {
  if (got.headers['webhook-id'] === undefined) return [];
  const body = JSON.parse(got.body) as { type?: string; data?: unknown };
  // A hand-made body of a unit test of the sender is no event either.
  if (body.data === undefined) return [];
  if (typeof body.type !== 'string' || !isWebhookEventType(body.type))
    return [`an unknown event type: ${String(body.type)}`];
  return [...Value.Errors(eventBodySchema(body.type), body)].map(
    (e) => `${body.type} ${e.instancePath}: ${e.message}`,
  );
}

/**
 * A webhook receiver on a loopback port: it records each request and answers the next scripted
 * status (200 once the script is spent) with `answer` as the body.
 */
export async function startReceiver(script: number[] = [], answer = 'ok') {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = script.shift() ?? 200;
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Stops it, once every signed event it got has been checked against its documented schema. */
    close: async () => {
      expect(received.flatMap(schemaErrorsOf)).toEqual([]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The headers a Standard Webhooks verifier reads. */
export const webhookHeaders = (headers: IncomingHttpHeaders) => ({
  'webhook-id': String(headers['webhook-id']),
  'webhook-timestamp': String(headers['webhook-timestamp']),
  'webhook-signature': String(headers['webhook-signature']),
});
