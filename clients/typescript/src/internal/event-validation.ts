import type { EventType, TrackPayload } from '../types.ts';
import { MAX_USER_ID_LENGTH } from './constants.ts';

const EVENT_TYPES: ReadonlySet<string> = new Set(['exposure', 'model_call', 'business_event']);

/**
 * Any string buckets (the shared vectors include the empty one), but the API stores only user
 * ids of 1 to 256 characters, so no event is made for others. UTF-16 units are counted: never
 * fewer than code points, so an id that passes here passes the API however it counts.
 */
export function isWireUserId(user: string): boolean {
  return user.length >= 1 && user.length <= MAX_USER_ID_LENGTH;
}

/**
 * Why the API would refuse this event, or null. Checked at `track` time because a refusal
 * found at flush time would cost the whole batch a round trip and the caller's mistake a log
 * line far from its cause.
 */
export function trackProblem(event: unknown, payload: TrackPayload): string | null {
  if (typeof event !== 'string' || !EVENT_TYPES.has(event)) {
    return `unknown event type ${JSON.stringify(event)}`;
  }
  if (typeof payload !== 'object' || payload === null) return 'payload is not an object';
  if (typeof payload.experiment_id !== 'string' || payload.experiment_id === '') {
    return 'experiment_id is missing';
  }
  if (typeof payload.user_id !== 'string' || !isWireUserId(payload.user_id)) {
    return `user_id must be 1 to ${MAX_USER_ID_LENGTH} characters`;
  }
  if ((event as EventType) === 'business_event') {
    if (typeof payload.business_metric !== 'string' || payload.business_metric === '') {
      return 'business_metric is missing';
    }
    if (typeof payload.value !== 'number' || !Number.isFinite(payload.value)) {
      return 'value must be a finite number';
    }
  }
  return null;
}
