import { BUSINESS_FIELDS, MODEL_CALL_FIELDS } from '@arbiter/contract';
import { Type } from 'typebox';
import { EventSchema } from './event-schema.ts';

/**
 * The events of a batch as the OpenAPI document states them: one shape per `type`, each made
 * of EventSchema's own field schemas, so the document follows every change to the checks.
 * Stricter than EventSchema alone, as checkEvent is: model fields only on `model_call`,
 * `business_metric` and `value` required on `business_event` and nowhere else.
 */
const COMMON = ['event_id', 'experiment_id', 'user_id', 'timestamp', 'metadata'] as const;

function shape(type: string, fields: object, required: object = {}) {
  return Type.Object(
    {
      type: Type.Literal(type),
      ...Type.Pick(EventSchema, [...COMMON]).properties,
      ...fields,
      ...required,
    },
    { additionalProperties: false, title: type },
  );
}

export const EventShapes = Type.Union(
  [
    shape('exposure', Type.Pick(EventSchema, ['variant']).properties),
    shape('model_call', Type.Pick(EventSchema, [...MODEL_CALL_FIELDS]).properties),
    shape(
      'business_event',
      Type.Pick(EventSchema, ['variant']).properties,
      Type.Required(Type.Pick(EventSchema, [...BUSINESS_FIELDS])).properties,
    ),
  ],
  {
    description:
      'One event, by `type` (docs/wire-format.md). Each is checked on its own: an invalid one is listed in `rejected` and the rest of the batch is accepted.',
  },
);
