import { describe, expect, it } from 'vitest';
import { eventsAsCopyText } from '../../src/ingest/copy-text.ts';
import { EVENT_COLUMNS } from '../../src/ingest/event-columns.ts';
import type { AcceptedEvent } from '../../src/ingest/event-schema.ts';

const ORG = '6b1c3f0e-7a2d-4e8f-9c1b-2d3e4f5a6b7c';

function event(fields: Partial<AcceptedEvent>): AcceptedEvent {
  return {
    event_id: 'e1',
    type: 'model_call',
    experiment_id: '0b9a4f8e-1c1d-4c55-9a1e-3b7a1d2c4e5f',
    user_id: 'u1',
    variant: 'control',
    timestamp: '2026-11-27T10:00:00.000Z',
    received_at: '2026-11-27T10:00:01.000Z',
    is_test: false,
    ...fields,
  } as AcceptedEvent;
}

/** One row's fields by column name, as PostgreSQL's COPY text format splits them. */
function fieldsOf(row: string): Record<string, string> {
  const [org, ...values] = row.split('\t');
  expect(org).toBe(ORG);
  expect(values).toHaveLength(EVENT_COLUMNS.length);
  return Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c.column, values[i] as string]));
}

describe('eventsAsCopyText', () => {
  it('writes one line an event, its columns in order, null and absent as \\N', () => {
    const text = eventsAsCopyText(ORG, [
      event({ latency_ms: 12.5, input_tokens: 200, output_tokens: 0, model: 'm' }),
      event({ event_id: 'e2', variant: null, is_test: true }),
    ]);
    expect(text.endsWith('\n')).toBe(true);
    const [first, second] = text.slice(0, -1).split('\n').map(fieldsOf);
    expect(first).toMatchObject({
      event_id: 'e1',
      occurred_at: '2026-11-27T10:00:00.000Z',
      latency_ms: '12.5',
      input_tokens: '200',
      output_tokens: '0',
      model: 'm',
      cost_usd: '\\N',
      metadata: '\\N',
      is_test: 'f',
    });
    expect(second).toMatchObject({ event_id: 'e2', variant: '\\N', is_test: 't' });
  });

  it('escapes backslash, tab, newline and carriage return in text and in metadata alike', () => {
    const said = 'a\\b\tc\nd\re';
    const [row] = eventsAsCopyText(ORG, [
      event({
        prompt: said,
        response: 'only\rthis',
        model: 'only\\this',
        error: 'only\tthis',
        business_metric: 'only\nthis',
        metadata: { note: said },
      }),
    ]).split('\n');
    const fields = fieldsOf(row as string);
    expect(fields.prompt).toBe('a\\\\b\\tc\\nd\\re');
    expect(fields).toMatchObject({
      response: 'only\\rthis',
      model: 'only\\\\this',
      error: 'only\\tthis',
      business_metric: 'only\\nthis',
    });
    // JSON already writes the controls as \t \n \r, so only its backslashes are doubled
    expect(fields.metadata).toBe(JSON.stringify({ note: said }).replaceAll('\\', '\\\\'));
  });
});
