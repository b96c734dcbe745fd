import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** docs/ stands on its own: every document it links or names is in the repository. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');

function referencedDocuments(markdown: string): string[] {
  const links = [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] as string);
  const named = [...markdown.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1] as string);
  return [...links, ...named].filter((ref) => !/^[a-z]+:/.test(ref));
}

/** The documents of docs/ and the area pages of docs/decisions/, relative to docs/. */
const DOCUMENTS = [
  ...readdirSync(DOCS).filter((f) => f.endsWith('.md')),
  ...readdirSync(join(DOCS, 'decisions'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `decisions/${f}`),
];

describe('docs/', () => {
  for (const file of DOCUMENTS) {
    it(`${file} refers only to documents in the repository`, () => {
      const text = readFileSync(join(DOCS, file), 'utf8');
      const missing = referencedDocuments(text).filter(
        (ref) => !existsSync(join(dirname(join(DOCS, file)), ref)) && !existsSync(join(ROOT, ref)),
      );
      expect(missing).toEqual([]);
    });
  }

  it('lists every area page of the decisions in its index', () => {
    const index = readFileSync(join(DOCS, 'decisions.md'), 'utf8');
    for (const file of DOCUMENTS.filter((f) => f.startsWith('decisions/')))
      expect(index).toContain(`](${file})`);
  });

  it('is linked from the README, quick start included', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md')))
      expect(readme).toContain(`docs/${file}`);
  });
});
