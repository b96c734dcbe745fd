import { Type } from 'typebox';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

/** One attempt of a delivery, as made. */
const AttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1, description: 'Counts from 1 per delivery' }),
  started_at: DateTime,
  duration_ms: Type.Integer({ minimum: 0, description: 'From the request to the answer kept' }),
  response_status: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status; null when it gave none",
  }),
  response_body: Nullable(
    Type.String(),
    "The first 1 KiB of the receiver's answer (UTF-8); null when there was none",
  ),
  error: Nullable(Type.String(), 'Why there was no answer; null when there was one'),
});

/** One event queued for one endpoint, as the deliveries routes answer it. */
export const DeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ description: 'The event id, sent as `webhook-id` on every attempt' }),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(DateTime, 'When a pending delivery is next attempted'),
  last_response_status: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's last HTTP status; null when it gave none",
  }),
  last_error: Nullable(Type.String(), 'Why the last attempt failed; null after a success'),
  created_at: DateTime,
  finished_at: Nullable(DateTime, 'When it was delivered or given up'),
  event: Type.Unknown({ description: 'The event as signed and sent: `{type, timestamp, data}`' }),
  attempt_log: Type.Array(AttemptSchema, {
    description: 'Every attempt so far, the first first',
  }),
});
