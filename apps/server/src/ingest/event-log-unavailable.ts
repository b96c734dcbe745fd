/**
 * The event log could not take a batch (a Kafka topic whose brokers did not acknowledge it):
 * nothing of the batch was claimed or metered, and the client is to send it again. The edge
 * answers 503 with `Retry-After`, never a 202 for an event that is not on the log.
 */
export class EventLogUnavailable extends Error {
  constructor(cause: unknown) {
    super('the event log did not acknowledge the batch', { cause });
    this.name = 'EventLogUnavailable';
  }
}

export function isEventLogUnavailable(error: unknown): error is EventLogUnavailable {
  return error instanceof EventLogUnavailable;
}
