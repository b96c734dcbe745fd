import { createHash } from 'node:crypto';
import { type AcceptDeps, acceptEvents } from './accept.ts';
import { refuseIfNothingAccepted } from './refusal.ts';

export interface BusinessEventInput {
  event_id?: string;
  experiment_id: string;
  user_id: string;
  variant?: string;
  business_metric: string;
  value: number;
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

/**
 * One signed downstream outcome through the ingest path. Without an event_id the id is a hash
 * of the body as sent, so a redelivery is counted once.
 */
export async function acceptBusinessEvent(
  ctx: AcceptDeps,
  orgId: string,
  b: BusinessEventInput,
  rawBody: string,
) {
  const event = {
    event_id:
      b.event_id ?? `bev-${createHash('sha256').update(rawBody).digest('hex').slice(0, 40)}`,
    type: 'business_event',
    experiment_id: b.experiment_id,
    user_id: b.user_id,
    timestamp: b.timestamp ?? ctx.clock.now().toISOString(),
    business_metric: b.business_metric,
    value: b.value,
    ...(b.variant === undefined ? {} : { variant: b.variant }),
    ...(b.metadata === undefined ? {} : { metadata: b.metadata }),
  };
  // A downstream system may deliver an outcome late (retries over days): history rules.
  const outcome = await acceptEvents(ctx, orgId, [event], { timestamps: 'history' });
  refuseIfNothingAccepted(outcome, () => '#');
  return {
    accepted: outcome.accepted,
    config_version: outcome.configVersion,
    event_id: event.event_id,
    before_analysis_window: outcome.beforeWindow > 0,
  };
}
