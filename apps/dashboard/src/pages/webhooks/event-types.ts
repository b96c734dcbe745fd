import type { EventType } from './queries.ts';

/**
 * Every event type an endpoint may ask for, with what sends it. A Record over the contract's
 * union: a type the server adds fails the dashboard's typecheck until it is described here.
 */
export const EVENT_TYPES: Record<EventType, string> = {
  'results.published': 'a nightly or final run is stored',
  'results.halted': 'the SRM gate halted a run',
  'guardrail.violated': 'a run finds a guardrail worse',
  'experiment.created': 'an experiment is created',
  'experiment.updated': 'an experiment is changed',
  'experiment.started': 'a draft starts',
  'experiment.stopped': 'a running experiment stops',
  'experiment.archived': 'an experiment is archived',
  'experiment.rollout_advanced': 'a ramp moves to its next step',
  'rollout.paused': 'a ramp is paused',
  'experiment.rolled_back': 'the ramp’s guard rolls an experiment back',
  'offline_run.completed': 'an offline run ends, its gates passed or failed',
  'usage.threshold': 'the month reaches 80 % or 100 % of the allowance',
  'webhook_endpoint.test': 'the "Send test event" button',
};

export const ALL_EVENT_TYPES = Object.keys(EVENT_TYPES) as EventType[];

/** An endpoint's subscription in words: an empty list is every type. */
export const eventsText = (types: readonly string[]) =>
  types.length === 0 ? 'every event type' : types.join(', ');
