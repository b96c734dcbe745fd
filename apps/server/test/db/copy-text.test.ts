import { describe, expect, it } from 'vitest';
import { copyField, copyLine } from '../../src/db/copy-text.ts';
import { KEY_NOT_ACTIVE, sqlStateOf, UNIQUE_VIOLATION } from '../../src/db/pg-error-codes.ts';

describe('the COPY text encoder', () => {
  it('escapes the four specials, writes null as \\N, flags as t/f and objects as JSON', () => {
    expect(copyField('a\\b\nc\rd\te')).toBe('a\\\\b\\nc\\rd\\te');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField(1.5)).toBe('1.5');
    expect(copyField(false)).toBe('f');
    expect(copyField({ k: 'tab\there' })).toBe('{"k":"tab\\\\there"}');
  });

  it('joins fields into one line', () => {
    expect(copyLine(['x', null, 3, 'new\nline'])).toBe('x\t\\N\t3\tnew\\nline\n');
  });
});

describe('sqlStateOf', () => {
  it("finds the driver's code through drizzle's cause, and no code that is not a SQLSTATE", () => {
    const driver = Object.assign(new Error('duplicate'), { code: UNIQUE_VIOLATION });
    expect(sqlStateOf(new Error('wrapped', { cause: driver }))).toBe(UNIQUE_VIOLATION);
    expect(sqlStateOf({ code: KEY_NOT_ACTIVE })).toBe(KEY_NOT_ACTIVE);
    expect(sqlStateOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBeNull();
    expect(sqlStateOf(null)).toBeNull();
  });
});
