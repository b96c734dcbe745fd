import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repositoryFiles } from './support/readme-layout.ts';

/**
 * The tree states rules and reasons, not where they came from: no file names an issue, a work
 * session or an item of a list by its number, which means nothing to a reader without the
 * tracker or the journal it points into. The word must be followed by a number, so an HTTP
 * `items` field, a "session token" or "the session's cookie" pass.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The word, then a number after spaces, a `#` or a hyphen. The hyphened form counts only in
 * prose: a quoted or path-like `item-3` is a name, not a reference.
 */
const NUMBERED =
  /\b(?:issues?|sessions?|items?)(?:\s+#?|\s*#)\d+|(?<![\w"'`/.-])(?:issues?|sessions?|items?)-\d+/gi;

function numberedReferences(text: string): string[] {
  return [...text.matchAll(NUMBERED)].map((m) => m[0]);
}

/** Planted strings are built from parts so this file holds no reference of its own. */
const ref = (word: string, rest: string) => `${word}${rest}`;

describe('the numbered-reference matcher', () => {
  it('finds an issue, a session or an item named by its number, in any case and form', () => {
    expect(numberedReferences(`see ${ref('issue', ' 12')} for why`)).toEqual([ref('issue', ' 12')]);
    expect(numberedReferences(ref('Session', ' 3'))).toHaveLength(1);
    expect(numberedReferences(`${ref('issues', ' 12')} and 14`)).toHaveLength(1);
    expect(numberedReferences(`its ${ref('session', '-44')} section`)).toHaveLength(1);
    expect(numberedReferences(`(${ref('issues', ' 4, 16')})`)).toHaveLength(1);
    expect(numberedReferences(`${ref('Item', ' 4')}: the fold`)).toHaveLength(1);
    expect(numberedReferences(ref('issue', ' #29'))).toHaveLength(1);
    expect(numberedReferences(ref('ISSUE', '\n7'))).toHaveLength(1);
  });

  it('passes the words without a number after them', () => {
    const clean = [
      'the session token expires',
      "the session's cookie, 2 hours",
      'items: [{ id: 1 }]',
      'an issue with 3 causes',
      'max items per batch is 500',
      'reissue 12 keys',
      'sessionId 42',
      'stored["item-3"] and /items-2/',
    ];
    for (const text of clean) expect(numberedReferences(text)).toEqual([]);
  });
});

function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 8000).includes(0);
}

function read(path: string): Buffer | null {
  try {
    return readFileSync(join(ROOT, path));
  } catch {
    return null; // listed by git but deleted in the working tree
  }
}

describe('the repository', () => {
  it('names no issue, session or item by its number in any text file', () => {
    const files = repositoryFiles(ROOT);
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) => {
      const bytes = read(file);
      if (bytes === null || !isText(bytes)) return [];
      return numberedReferences(bytes.toString('utf8')).map((hit) => `${file}: ${hit}`);
    });
    expect(found).toEqual([]);
  });
});
