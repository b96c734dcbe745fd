import { type Static, Type } from 'typebox';
import { Text, TextMatching } from '../../schemas/text.ts';
import { WEBHOOK_EVENT_TYPES } from './event-types.ts';

const EventTypes = Type.Array(Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))), {
  uniqueItems: true,
  description: 'The event types sent to this endpoint; empty (the default) means every type',
});

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
// A host name, never an address: its last label starts with a letter (a numeric one reads as an
// IPv4 address), and no label holds "--" (a punycode label may not decode). No lookaheads: the
// contract's fuzzing generates from this pattern.
const LABEL = '[A-Za-z0-9]+(-[A-Za-z0-9]+)*';
const TOP = '[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*';
const PORT =
  '(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?';
const IPV4 = `${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}`;
// A path and query of RFC 3986's characters, spelled out (no fragment, no space).
const REST = "([/?][A-Za-z0-9._~:/?@!$&'()*+,;=%-]*)?";
/**
 * The URLs the endpoint check can admit: a name, an IPv4 literal or `[::1]`, over http or https.
 * Which of them a server admits depends on ARBITER_WEBHOOKS_ALLOW_PRIVATE (url-policy.ts
 * checks, and says why in words).
 */
const URL_PATTERN = `^https?://((${LABEL}\\.)*${TOP}|${IPV4}|\\[::1\\])${PORT}${REST}$`;

/** What an endpoint receives: the signed JSON event, or a Slack message. */
export const ENDPOINT_KINDS = ['webhook', 'slack'] as const;
const Kind = Type.Union([Type.Literal(ENDPOINT_KINDS[0]), Type.Literal(ENDPOINT_KINDS[1])], {
  description:
    '`webhook` (the default): the signed JSON event. `slack`: a Slack incoming-webhook URL (https://hooks.slack.com/…) that gets a readable Block Kit message instead, unsigned. Fixed at creation.',
});

const fields = {
  url: TextMatching(URL_PATTERN, {
    minLength: 1,
    maxLength: 2048,
    description:
      'https to a public host; http and private addresses only where the server sets ARBITER_WEBHOOKS_ALLOW_PRIVATE',
  }),
  event_types: EventTypes,
  description: Text({ maxLength: 500, description: 'Free text for people' }),
  enabled: Type.Boolean({ description: 'A disabled endpoint is sent nothing' }),
};

/** What `POST /v1/webhook-endpoints` takes. */
export const EndpointInputSchema = Type.Object(
  {
    url: fields.url,
    kind: Type.Optional(Kind),
    event_types: Type.Optional(fields.event_types),
    description: Type.Optional(fields.description),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);

/** What `PATCH /v1/webhook-endpoints/{id}` takes: any of the fields, at least one. */
export const EndpointPatchSchema = Type.Object(
  {
    url: Type.Optional(fields.url),
    event_types: Type.Optional(fields.event_types),
    description: Type.Optional(fields.description),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** An endpoint as served; its secret never is, but at creation and rotation. */
export const EndpointSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  kind: Kind,
  event_types: Type.Array(Type.String()),
  description: Type.String(),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why the server disabled the endpoint (every attempt failed for 5 days); null otherwise. Enabling it again clears it.',
  }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The first failed attempt since the last success; null while it answers',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const Secret = Type.String({
  pattern: '^whsec_',
  description: 'The signing secret (`whsec_` + base64 of 32 random bytes), shown only now',
});

/** The endpoint and its secret, answered once at creation. */
export const CreatedEndpointSchema = Type.Object({ ...EndpointSchema.properties, secret: Secret });

/** A new secret, answered once by the rotation. */
export const RotatedSecretSchema = Type.Object({
  secret: Secret,
  previous_valid_until: Type.String({
    format: 'date-time',
    description: 'Until then the previous secret signs too (a second `v1` signature)',
  }),
});

export type EndpointInput = Static<typeof EndpointInputSchema>;
export type EndpointPatch = Static<typeof EndpointPatchSchema>;
