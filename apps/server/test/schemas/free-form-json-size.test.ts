import { FREE_FORM_JSON_MAX_BYTES } from '@arbiter/contract';
import { describe, expect, it } from 'vitest';
import { freeFormJsonProblem } from '../../src/schemas/free-form-json.ts';

/** `{"p":"…"}` whose JSON is `bytes` bytes long, made of `unit` (`unitBytes` bytes as JSON). */
const sized = (bytes: number, unit: string, unitBytes: number) => {
  const room = bytes - '{"p":""}'.length;
  expect(room % unitBytes).toBe(0);
  return { p: unit.repeat(room / unitBytes) };
};

describe('the free-form size limit, counted in UTF-8 bytes of compact JSON', () => {
  const cases: Array<[string, string, number]> = [
    ['ASCII', 'x', 1],
    ['two-byte characters', 'é', 2],
    ['escaped control characters', '\u0001', 6],
  ];
  it.each(cases)('takes %s up to the limit and refuses one unit more', (_, unit, unitBytes) => {
    const limit = FREE_FORM_JSON_MAX_BYTES - ((FREE_FORM_JSON_MAX_BYTES - 8) % unitBytes);
    const at = sized(limit, unit, unitBytes);
    expect(freeFormJsonProblem(at)).toBeNull();
    const over = { p: `${at.p}${unit}` };
    const bytes = limit + unitBytes;
    expect(freeFormJsonProblem(over)).toEqual(
      bytes > FREE_FORM_JSON_MAX_BYTES
        ? { pointer: '', detail: `${bytes} bytes as JSON, more than ${FREE_FORM_JSON_MAX_BYTES}` }
        : null,
    );
  });

  it('measures a value with toJSON by what it serialises to', () => {
    const count = Math.ceil(FREE_FORM_JSON_MAX_BYTES / '"2026-03-01T00:00:00.000Z",'.length) + 1;
    const dates = Array.from({ length: count }, () => new Date('2026-03-01T00:00:00Z'));
    const bytes = Buffer.byteLength(JSON.stringify({ d: dates }));
    expect(freeFormJsonProblem({ d: dates })).toEqual({
      pointer: '',
      detail: `${bytes} bytes as JSON, more than ${FREE_FORM_JSON_MAX_BYTES}`,
    });
  });

  it('names where a refused key sits, escaping the pointer', () => {
    expect(freeFormJsonProblem({ 'a/b': { '~k': { 'bad\u0000': 1 } } })?.pointer).toBe(
      '/a~1b/~0k/bad\u0000',
    );
  });
});
