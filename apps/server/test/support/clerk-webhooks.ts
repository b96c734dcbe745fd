import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Webhook } from 'svix';
import type { App } from '../../src/http/app-types.ts';

/** A signing secret shaped like the one Clerk shows for a webhook endpoint. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface Delivery {
  /** The Svix message id; a retry of one event keeps it. */
  msgId: string;
  /** When Svix signs this attempt (svix-timestamp). */
  sentAt?: Date;
  /** Sign with this secret instead of the endpoint's. */
  secret?: string;
  /** Sent instead of the signed body (a body altered on the way). */
  tamperedBody?: string;
}

/** Posts an event to /v1/webhooks/clerk exactly as Svix does, signed by the `svix` library. */
export function deliverer(app: App, endpointSecret: string) {
  return (event: object, delivery: Delivery): Promise<LightMyRequestResponse> => {
    const sentAt = delivery.sentAt ?? new Date();
    const payload = JSON.stringify(event);
    const signature = new Webhook(delivery.secret ?? endpointSecret).sign(
      delivery.msgId,
      sentAt,
      payload,
    );
    return app.inject({
      method: 'POST',
      url: '/v1/webhooks/clerk',
      headers: {
        'content-type': 'application/json',
        'svix-id': delivery.msgId,
        'svix-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'svix-signature': signature,
      },
      payload: delivery.tamperedBody ?? payload,
    });
  };
}

/** Clerk's event envelope around `data`; `at` is the event's instant (Unix ms). */
export function clerkEvent(type: string, data: object, at: number) {
  return {
    data,
    event_attributes: { http_request: { client_ip: '192.0.2.1', user_agent: 'test' } },
    instance_id: 'ins_test',
    object: 'event',
    timestamp: at,
    type,
  };
}

export function clerkOrganization(id: string, name: string, at: number) {
  return {
    object: 'organization',
    id,
    name,
    slug: name.toLowerCase().replace(/\W+/g, '-'),
    image_url: '',
    has_image: false,
    max_allowed_memberships: 5,
    admin_delete_enabled: true,
    public_metadata: {},
    private_metadata: {},
    created_by: 'user_creator',
    created_at: at,
    updated_at: at,
  };
}

export function clerkUser(
  id: string,
  who: { email: string; first: string | null; last: string | null },
  at: number,
) {
  return {
    object: 'user',
    id,
    username: null,
    first_name: who.first,
    last_name: who.last,
    image_url: '',
    has_image: false,
    primary_email_address_id: 'idn_primary',
    primary_phone_number_id: null,
    email_addresses: [
      { id: 'idn_other', object: 'email_address', email_address: 'old@example.com' },
      { id: 'idn_primary', object: 'email_address', email_address: who.email },
    ],
    phone_numbers: [],
    external_id: null,
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    created_at: at,
    updated_at: at,
  };
}

export function clerkMembership(
  m: { id: string; orgId: string; userId: string; role: string; identifier?: string },
  at: number,
) {
  return {
    object: 'organization_membership',
    id: m.id,
    role: m.role,
    permissions: [],
    public_metadata: {},
    private_metadata: {},
    created_at: at,
    updated_at: at,
    organization: clerkOrganization(m.orgId, 'Acme', at),
    public_user_data: {
      user_id: m.userId,
      identifier: m.identifier ?? `${m.userId}@example.com`,
      first_name: null,
      last_name: null,
      image_url: '',
      has_image: false,
    },
  };
}
