import { packModelText } from '../domain/model-text-object.ts';
import type { ModelTextStore } from '../kernel/ports.ts';
import { utcDay } from '../kernel/utc-day.ts';
import type { AcceptedEvent } from './event-schema.ts';

/** Puts in flight at once for one batch: a batch of 1,000 model calls is 1,000 objects. */
const PUTS_AT_ONCE = 16;

/**
 * The object store could not take a batch's text: nothing of the batch was appended, claimed
 * or metered, and the client is to send it again. The edge answers 503 with `Retry-After`,
 * never a 202 for an event whose text is not stored.
 */
export class ModelTextUnavailable extends Error {
  constructor(cause: unknown) {
    super('the object store did not take the model text', { cause });
    this.name = 'ModelTextUnavailable';
  }
}

export function isModelTextUnavailable(error: unknown): error is ModelTextUnavailable {
  return error instanceof ModelTextUnavailable;
}

/** The event with its text replaced by the stored object's reference. */
async function offloadOne(
  store: ModelTextStore,
  orgId: string,
  event: AcceptedEvent,
): Promise<AcceptedEvent> {
  const packed = packModelText(event.prompt, event.response);
  const key = await store.put(
    {
      orgId,
      day: utcDay(new Date(event.timestamp)),
      eventId: event.event_id,
      sha256: packed.sha256,
    },
    packed.body,
  );
  const { prompt: _prompt, response: _response, ...rest } = event;
  return {
    ...rest,
    text_key: key,
    ...(packed.promptBytes === null ? {} : { prompt_bytes: packed.promptBytes }),
    ...(packed.responseBytes === null ? {} : { response_bytes: packed.responseBytes }),
    text_sha256: packed.sha256,
  };
}

/**
 * Moves each model call's prompt and response to the store, before the batch reaches the log:
 * the row and the log message then carry the reference, sizes and SHA-256 instead. Every
 * model call with text goes, whatever its size (docs/decisions/scale-out.md#model-text-in-object-storage).
 * Resolves once every object is stored; throws ModelTextUnavailable otherwise.
 */
export async function offloadModelText(
  store: ModelTextStore,
  orgId: string,
  events: readonly AcceptedEvent[],
): Promise<AcceptedEvent[]> {
  const out = [...events];
  const todo = events.flatMap((e, i) =>
    e.type === 'model_call' && (e.prompt !== undefined || e.response !== undefined) ? [i] : [],
  );
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const i = todo[next++] as number;
      out[i] = await offloadOne(store, orgId, events[i] as AcceptedEvent);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PUTS_AT_ONCE, todo.length) }, worker));
  } catch (error) {
    throw new ModelTextUnavailable(error);
  }
  return out;
}
