import { describe, expect, it } from 'vitest';
import { packModelText, unpackModelText } from '../../src/domain/model-text-object.ts';

/** The stored form of a model call's text: the prompt's bytes then the response's, checked on read. */
describe('a packed model text', () => {
  const back = (prompt: string | undefined, response: string | undefined) => {
    const packed = packModelText(prompt, response);
    return unpackModelText(packed.body, { ...packed, key: 'k' });
  };

  it('comes back as sent, multi-byte and astral characters included', () => {
    expect(back('ünï 🚀\n"x"', 'résumé ✓')).toEqual({
      prompt: 'ünï 🚀\n"x"',
      response: 'résumé ✓',
    });
  });

  it('tells a missing text from an empty one', () => {
    expect(back(undefined, '')).toEqual({ prompt: null, response: '' });
    expect(back('', undefined)).toEqual({ prompt: '', response: null });
  });

  it('records the byte counts and the SHA-256 of the whole object', () => {
    const packed = packModelText('é', 'ab');
    expect(packed).toMatchObject({ promptBytes: 2, responseBytes: 2 });
    expect(packed.body.toString('utf8')).toBe('éab');
    // sha256sum of the three characters' four bytes, computed outside the code under test
    expect(packed.sha256).toBe('b2624b13f17f413192ea23b8052a24444bf0d1040ee7bbba6ffac13cd1fb8dba');
  });

  it('refuses other bytes than the row names', () => {
    const packed = packModelText('prompt', 'response');
    const ref = { ...packed, key: 'k' };
    const changed = Buffer.from(packed.body);
    changed[0] = 'P'.charCodeAt(0);
    expect(() => unpackModelText(changed, ref)).toThrow(/not what was accepted/);
    expect(() => unpackModelText(packed.body.subarray(1), ref)).toThrow(/not what was accepted/);
  });
});
