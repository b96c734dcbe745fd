import { describe, expect, it } from 'vitest';
import {
  readAttributes,
  readTargeting,
  savedGroupsByKey,
  targetingText,
  verdict,
} from '../../src/pages/editor/targeting.ts';

const groups = [{ key: 'staff', values: ['u-1', 'u-2'] }];
const byKey = savedGroupsByKey(groups);

describe('the targeting box', () => {
  it('reads blank text and {} as everyone, and text that is no JSON object as unparsable', () => {
    expect(readTargeting('  ', groups)).toEqual({ kind: 'everyone' });
    expect(readTargeting('{}', groups)).toEqual({ kind: 'everyone' });
    expect(readTargeting('{"plan":', groups)).toMatchObject({ kind: 'unparsable' });
    expect(readTargeting('[1]', groups)).toEqual({
      kind: 'unparsable',
      message: 'The condition is not a JSON object',
    });
  });

  it('lists the save-time problems with their pointers, portable regexes included', () => {
    const reading = readTargeting('{"age": {"$gt": [1]}, "name": {"$regex": "(?<n>a)"}}', groups);
    expect(reading).toMatchObject({ kind: 'condition', readable: false });
    const pointers = reading.kind === 'condition' ? reading.problems.map((p) => p.pointer) : [];
    expect(pointers).toEqual(['/age/$gt', '/name/$regex']);
  });

  it('reads a pattern outside the portable subset as every client does: matching no one', () => {
    const reading = readTargeting('{"name": {"$regex": "(?<first>a)"}}', groups);
    expect(reading).toMatchObject({ kind: 'condition', readable: false });
    expect(reading.kind === 'condition' && reading.problems.length).toBe(1);
    expect(verdict(reading, readAttributes('{"name": "ada"}'), byKey).matches).toBe(false);
  });

  it('names a saved group the org does not have, once the groups are known', () => {
    const text = '{"$or": [{"id": {"$inGroup": "staff"}}, {"id": {"$inGroup": "staf"}}]}';
    const reading = readTargeting(text, groups);
    expect(reading).toMatchObject({
      kind: 'condition',
      readable: true,
      problems: [{ pointer: '/$or/1/id/$inGroup', message: 'no saved group has the key "staf"' }],
    });
    expect(readTargeting(text, null)).toMatchObject({ problems: [] });
  });

  it('shows a stored condition pretty-printed and no targeting as an empty box', () => {
    expect(targetingText(undefined)).toBe('');
    expect(targetingText({})).toBe('');
    expect(targetingText({ plan: 'pro' })).toBe('{\n  "plan": "pro"\n}');
  });
});

describe('the live check', () => {
  const condition = readTargeting('{"plan": "pro", "id": {"$notInGroup": "staff"}}', groups);

  it('matches a user the condition admits and not one in the excluded group', () => {
    expect(verdict(condition, readAttributes('{"plan": "pro", "id": "u-9"}'), byKey)).toEqual({
      matches: true,
      text: 'matches: this user may enter',
    });
    expect(verdict(condition, readAttributes('{"plan": "pro", "id": "u-1"}'), byKey)).toEqual({
      matches: false,
      text: 'does not match: null, no exposure',
    });
  });

  it('reads empty attributes as {} and lets everyone in without targeting', () => {
    expect(verdict(condition, readAttributes(''), byKey).matches).toBe(false);
    expect(verdict(readTargeting('', groups), readAttributes(''), byKey)).toEqual({
      matches: true,
      text: 'matches: this user may enter (no targeting, everyone may enter)',
    });
  });

  it('says an unreadable condition matches no one, and gives no answer for unreadable input', () => {
    const unreadable = readTargeting('{"$not": {"age": {"$gt": [1]}}}', groups);
    expect(verdict(unreadable, readAttributes('{}'), byKey)).toEqual({
      matches: false,
      text: 'does not match: null, no exposure (an unreadable condition matches no one)',
    });
    expect(verdict(condition, readAttributes('{"plan"'), byKey).matches).toBeNull();
    expect(verdict(readTargeting('{', groups), readAttributes('{}'), byKey).matches).toBeNull();
    expect(verdict(condition, readAttributes('{}'), null).matches).toBeNull();
  });
});
