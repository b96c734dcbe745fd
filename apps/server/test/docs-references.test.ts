import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  brokenReferences,
  diskTree,
  SCANNED,
  type Tree,
} from './support/doc-references.ts';
import { repositoryFiles } from './support/readme-layout.ts';

/** Every reference in code comments and docs to a document's section resolves in the repository. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Fixture text is written with stand-ins so this file holds no reference of its own for the
 * real-tree scan to trip on: `<#>` is `#`, `<s>` the section sign, `<q>` a double quote, `<]>`
 * a closing bracket.
 */
const plant = (text: string) =>
  text
    .replaceAll('<#>', '#')
    .replaceAll('<s>', '\u00a7')
    .replaceAll('<q>', '"')
    .replaceAll('<]>', ']');

const FIXTURE_DOC = plant(
  [
    '# Decisions',
    '## Ingest',
    '### Duplicates',
    '## Ingest',
    '## `analysis_runs` JSON columns, typed (version 11)',
    '```',
    '## not a heading inside a fence',
    '```',
  ].join('\n'),
);

function fixtureTree(): Tree {
  const files = new Map([
    ['docs/decisions.md', FIXTURE_DOC],
    ['docs/other.md', '# Other'],
    ['src/a.ts', ''],
  ]);
  return {
    read: (path) => files.get(path) ?? null,
    exists: (path) => files.has(path) || path === 'docs' || path === 'src',
  };
}

const broken = (file: string, text: string) =>
  brokenReferences(fixtureTree(), file, plant(text)).map((b) => b.reference);

describe('the reference guard', () => {
  it("makes GitHub's anchors, numbering repeats and skipping fenced code", () => {
    expect([...anchorsOf(FIXTURE_DOC)]).toEqual([
      'decisions',
      'ingest',
      'duplicates',
      'ingest-1',
      'analysis_runs-json-columns-typed-version-11',
    ]);
  });

  it('passes references that resolve, from code and from a document beside the target', () => {
    expect(
      broken('src/a.ts', '// see docs/decisions.md<#>duplicates and docs/decisions.md<#>ingest-1'),
    ).toEqual([]);
    expect(
      broken('docs/other.md', 'See [Ingest<]>(decisions.md<#>ingest) or [the top<]>(<#>other)'),
    ).toEqual([]);
    expect(
      broken('docs/other.md', '[x<]>(../src/a.ts), [site<]>(https://example.com/a.md<#>b)'),
    ).toEqual([]);
    expect(broken('src/a.ts', '// an HTTP date (RFC 9110 <s>10.2.3)')).toEqual([]);
  });

  it('fails on a planted anchor that no heading makes', () => {
    expect(broken('src/a.ts', '// docs/decisions.md<#>ingest-duplicates')).toEqual([
      plant('docs/decisions.md<#>ingest-duplicates'),
    ]);
    expect(
      broken('docs/other.md', '[x<]>(decisions.md<#>not-a-heading-inside-a-fence)'),
    ).toHaveLength(1);
  });

  it('fails on a planted link to a file that is not there', () => {
    expect(broken('docs/other.md', 'See [it<]>(gone.md) and docs/gone.md<#>x')).toEqual([
      plant('<]>(gone.md)'),
      plant('docs/gone.md<#>x'),
    ]);
  });

  it('fails on a planted section number of a document outside the repository', () => {
    expect(broken('src/a.ts', '/** SPEC <s>8: clients poll every 60 s. */')).toEqual([
      '/** SPEC \u00a78:',
    ]);
    expect(broken('src/a.ts', '(DESIGN.md <s>7)')).toHaveLength(1);
  });

  it('fails on a planted section named in quotes after its document', () => {
    expect(broken('src/a.ts', '// docs/decisions.md, <q>Speed to the floor<q>')).toHaveLength(1);
    expect(broken('src/a.ts', '// docs/decisions.md (<q>Dashboard<q>)')).toHaveLength(1);
    expect(broken('docs/other.md', 'in `docs/decisions.md`, <q>Statistics<q>')).toHaveLength(1);
  });
});

describe('the references of the repository', () => {
  const files = repositoryFiles(ROOT).filter((file) => SCANNED.test(file));
  const tree = diskTree(ROOT, repositoryFiles(ROOT));
  const found = files.flatMap((file) => brokenReferences(tree, file, tree.read(file) ?? ''));

  it('all resolve', () => {
    expect(files.length).toBeGreaterThan(300);
    const report = found.map((b) => `${b.file}:${b.line}: ${b.reference} (${b.reason})`);
    expect(report).toEqual([]);
  });
});
