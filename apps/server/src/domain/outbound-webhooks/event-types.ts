/**
 * Every event type an endpoint may subscribe to. An endpoint with none listed gets every type.
 * docs/webhooks.md says which of them are sent today.
 */
export const WEBHOOK_EVENT_TYPES = [
  'results.published',
  'results.halted',
  'guardrail.violated',
  'experiment.created',
  'experiment.updated',
  'experiment.started',
  'experiment.stopped',
  'experiment.archived',
  'experiment.rollout_advanced',
  'rollout.paused',
  'experiment.rolled_back',
  'offline_run.completed',
  'usage.threshold',
  'webhook_endpoint.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (name: string): name is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(name);

/** At most this many endpoints per org. */
export const MAX_ENDPOINTS_PER_ORG = 20;

/** During a rotation the previous secret also signs for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
