import { EVENT_FIELDS, EVENT_TYPES } from '@arbiter/contract';
import { describe, expect, it } from 'vitest';
import { EventSchema } from '../../src/ingest/event-schema.ts';

/** The server's event schema speaks exactly the contract's vocabulary, no field more or less. */
describe('the event schema and the contract package', () => {
  it('lists the contract fields, in the wire order', () => {
    expect(Object.keys(EventSchema.properties)).toEqual([...EVENT_FIELDS]);
  });

  it('takes the contract types', () => {
    expect(EventSchema.properties.type.enum).toEqual([...EVENT_TYPES]);
  });
});
