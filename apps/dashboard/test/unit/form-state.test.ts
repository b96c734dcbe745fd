import { describe, expect, it } from 'vitest';
import type { Experiment } from '../../src/api/client.ts';
import {
  blankDraft,
  DraftError,
  draftOf,
  type EditorDraft,
  toInput,
  variantRows,
} from '../../src/pages/editor/form-state.ts';

const draft = (over: Partial<EditorDraft> = {}): EditorDraft => ({
  ...blankDraft(),
  name: 'checkout',
  salt: 's1',
  ...over,
});

describe('the editor draft', () => {
  it('gives every variant the allocation names a row, keeping typed ones and skipping blanks', () => {
    const d = draft({
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'short', weight: 50 },
        { variant: '', weight: 0 },
      ],
      variants: [{ key: 'short', prompt: 'Be brief.', variables: '' }],
    });
    expect(variantRows(d)).toEqual([
      { key: 'control', prompt: '', variables: '' },
      { key: 'short', prompt: 'Be brief.', variables: '' },
    ]);
  });

  it('turns into the API input: variables parsed, empty prompt and variables left out', () => {
    const input = toInput(
      draft({ variants: [{ key: 'control', prompt: '', variables: '{ "temperature": 0.2 }' }] }),
    );
    expect(input.variants).toEqual([
      { key: 'control', variables: { temperature: 0.2 } },
      { key: 'treatment' },
    ]);
    expect(input).toMatchObject({ name: 'checkout', salt: 's1', bucket_count: 10000 });
  });

  it('refuses variables that are not JSON, or JSON that is not an object, naming the variant', () => {
    const bad = (variables: string) => () =>
      toInput(draft({ variants: [{ key: 'treatment', prompt: '', variables }] }));
    expect(bad('{ temperature: 0.2 }')).toThrow(
      new DraftError('Variables of treatment are not valid JSON'),
    );
    expect(bad('[1, 2]')).toThrow(new DraftError('Variables of treatment must be a JSON object'));
    expect(bad('null')).toThrow(DraftError);
  });

  it('round-trips a stored experiment: draftOf then toInput gives its config back', () => {
    const stored = {
      id: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e',
      name: 'checkout',
      salt: 's-8f2a',
      bucket_count: 1000,
      allocation: [
        { variant: 'control', weight: 60 },
        { variant: 'concise', weight: 40 },
      ],
      variants: [
        { key: 'control', prompt: 'You are helpful.', variables: { temperature: 0.7 } },
        { key: 'concise' },
      ],
      metrics: [
        {
          name: 'latency',
          kind: 'latency',
          category: 'primary',
          method_default: 'welch_t',
          metric_version: 1,
          shared_org_wide: false,
        },
      ],
      targeting: { plan: { $in: ['pro', 'team'] } },
    } as unknown as Experiment;
    const { id: _id, ...config } = stored as unknown as Record<string, unknown>;
    expect(toInput(draftOf(stored))).toEqual(config);
  });

  it('sends an empty targeting box as {} (everyone), and refuses one that is no JSON object', () => {
    expect(toInput(draft()).targeting).toEqual({});
    expect(toInput(draft({ targeting: '{"age": {"$gt": [1]}}' })).targeting).toEqual({
      age: { $gt: [1] },
    });
    expect(() => toInput(draft({ targeting: '{"plan":' }))).toThrow(
      new DraftError('Targeting is not valid JSON'),
    );
    expect(() => toInput(draft({ targeting: '"pro"' }))).toThrow(
      new DraftError('Targeting must be a JSON object'),
    );
  });

  it('starts new drafts with a fresh salt each time', () => {
    expect(blankDraft().salt).not.toBe(blankDraft().salt);
  });
});
