/**
 * The small interfaces the layers share, in a module that imports nothing, so any layer may
 * depend on them without depending on the layer that implements them.
 */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The free space of the file system a local database writes to, in bytes; rejects when it
 * cannot be read. A port so a test without a small file system to fill can still lower it.
 */
export interface FreeSpaceProbe {
  freeBytes(): Promise<number>;
}

export interface JudgeInput {
  rubric: string;
  prompt: string;
  response: string;
  /** The reference answer, when there is one (an offline dataset item's expected output). */
  expected?: string;
}

export type JudgeOutcome = { ok: true; score: number } | { ok: false; reason: string };

/** Scores one model call against a metric's rubric; never throws for a remote failure. */
export interface Judge {
  score(input: JudgeInput): Promise<JudgeOutcome>;
}

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  replyTo?: string;
}

export type MailOutcome = { ok: true } | { ok: false; reason: string };

/** Sends one mail; never throws for a remote failure (the outcome says why). */
export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
  close(): void;
}

/** An organization as the identity provider holds it. */
export interface DirectoryOrg {
  externalId: string;
  /** Most members the provider lets the org have; null = unlimited. */
  seatCap: number | null;
}

/** The identity provider's Backend API, as far as seat caps go; rejects on a remote failure. */
export interface IdentityDirectory {
  listOrgs(): Promise<DirectoryOrg[]>;
  setSeatCap(externalId: string, seatCap: number | null): Promise<void>;
}

/** A subscription as the billing provider reports it, before it is mapped to a plan. */
export interface BillingSubscription {
  id: string;
  customerId: string | null;
  status: string;
  /** The price of the subscription's first item: it names the plan. */
  priceId: string | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  /** `metadata.arbiter_org_id`, set through checkout's `subscription_data.metadata`. */
  orgId: string | null;
}

interface BillingEventBase {
  id: string;
  /** When the provider created the event: orders deliveries of one subscription. */
  created: Date;
}

/** A verified billing webhook, reduced to what the service acts on. */
export type BillingEvent =
  | (BillingEventBase & {
      kind: 'subscription';
      /** `customer.subscription.deleted`: the subscription ended whatever its status says. */
      deleted: boolean;
      subscription: BillingSubscription;
    })
  | (BillingEventBase & {
      kind: 'checkout-completed';
      customerId: string | null;
      subscriptionId: string | null;
      orgId: string | null;
    })
  | (BillingEventBase & { kind: 'ignored'; providerType: string });

export type BillingWebhookCheck = { ok: true; event: BillingEvent } | { ok: false; reason: string };

/** Verifies a billing webhook delivery's signature over the exact body bytes. */
export interface BillingWebhookVerifier {
  verify(rawBody: string, signatureHeader: string | undefined, now: Date): BillingWebhookCheck;
}

/** The hosted pages of the billing provider; no card data passes through the service. */
export interface BillingProvider {
  /** Creates the org's customer; the same idempotency key makes a retry return the same one. */
  createCustomer(input: { orgId: string; name: string | null }): Promise<{ id: string }>;
  createCheckoutSession(input: {
    customerId: string;
    priceId: string;
    orgId: string;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ url: string }>;
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  retrieveSubscription(id: string): Promise<BillingSubscription>;
}

/** What became of one event: stored, acknowledged again, refused, or set aside by the fold. */
export type EventOutcome = 'accepted' | 'duplicate' | 'refused' | 'quarantined';
export type RunKind = 'nightly' | 'manual';
/** `skipped`: a nightly run another process held the lease for. */
export type RunOutcome = 'succeeded' | 'failed' | 'skipped';
export type JudgeCallOutcome = 'succeeded' | 'failed';

/**
 * What the process counts for an operator's Prometheus (`ARBITER_METRICS`), and how a scrape
 * reads it. Labels stay bounded: callers pass types and outcomes, never an id; an event type
 * outside the known ones is counted as `unknown`. With metrics off it is `silentMetrics`.
 */
export interface Metrics {
  countEvents(type: string | null, outcome: EventOutcome, count: number): void;
  observeRun(kind: RunKind, outcome: RunOutcome, seconds: number): void;
  countJudgeCall(outcome: JudgeCallOutcome): void;
  observeRequest(method: string, route: string, statusClass: string, seconds: number): void;
  /** The Prometheus text exposition of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** Metrics off: counts nothing, and a scrape has nothing to say. */
export const silentMetrics: Metrics = {
  countEvents: () => {},
  observeRun: () => {},
  countJudgeCall: () => {},
  observeRequest: () => {},
  scrape: async () => ({ contentType: 'text/plain', text: '' }),
};

/** Which model call an object of text belongs to: the parts of its key. */
export interface ModelTextObject {
  orgId: string;
  /** The UTC day of the event's timestamp, YYYY-MM-DD: retention deletes by it. */
  day: string;
  eventId: string;
  /** The SHA-256 of the object's bytes, hex. */
  sha256: string;
}

/**
 * An object store for model calls' prompt and response text (ARBITER_BLOB_URL,
 * docs/decisions/scale-out.md#model-text-in-object-storage). Every method rejects when the store
 * cannot be reached; `get` of a key that is not there rejects too.
 */
export interface ModelTextStore {
  /** Stores the bytes (creating the bucket the first time when missing); returns the key. */
  put(object: ModelTextObject, body: Uint8Array): Promise<string>;
  get(key: string): Promise<Uint8Array>;
  /** The UTC days the org has text stored under, YYYY-MM-DD, in order. */
  days(orgId: string): Promise<string[]>;
  /** Deletes every object of the org's day; returns how many. */
  deleteDay(orgId: string, day: string): Promise<number>;
}
