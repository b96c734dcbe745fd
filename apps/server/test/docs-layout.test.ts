import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  layoutEntries,
  missingFromLayout,
  repositoryFiles,
  requiredFolders,
  staleInLayout,
} from './support/readme-layout.ts';

/** The README's Layout names every folder a newcomer meets, and nothing that is gone. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const FIXTURE_README = [
  '# x',
  '## Layout',
  '',
  '```',
  'apps/server/          the API',
  '  src/http/           the edge',
  '  src/gone/           renamed long ago',
  'docs/                 documents',
  'dist/packages/        artifacts (not in git)',
  '```',
  '',
  '## Next',
].join('\n');

const FIXTURE_FILES = [
  'apps/server/package.json',
  'apps/server/src/http/app.ts',
  'apps/server/src/kernel/clock.ts',
  'apps/server/src/main.ts',
  'docs/a.md',
  'scripts/test.sh',
  'README.md',
];

describe('the Layout guard', () => {
  it('reads indented lines as paths inside the line above', () => {
    expect(layoutEntries(FIXTURE_README).map((e) => e.path)).toEqual([
      'apps/server/',
      'apps/server/src/http/',
      'apps/server/src/gone/',
      'docs/',
      'dist/packages/',
    ]);
  });

  it('asks for every top-level folder and every folder of the server source', () => {
    expect(requiredFolders(FIXTURE_FILES)).toEqual([
      'apps/',
      'apps/server/',
      'apps/server/src/http/',
      'apps/server/src/kernel/',
      'docs/',
      'scripts/',
    ]);
  });

  it('fails on a planted missing folder and a planted stale entry', () => {
    const entries = layoutEntries(FIXTURE_README);
    expect(missingFromLayout(entries, requiredFolders(FIXTURE_FILES))).toEqual([
      'apps/server/src/kernel/',
      'scripts/',
    ]);
    expect(staleInLayout(entries, FIXTURE_FILES)).toEqual(['apps/server/src/gone/']);
  });
});

describe("the README's Layout", () => {
  const entries = layoutEntries(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const files = repositoryFiles(ROOT);

  it('names every top-level folder, workspace and server source folder', () => {
    expect(requiredFolders(files).length).toBeGreaterThan(20);
    expect(missingFromLayout(entries, requiredFolders(files))).toEqual([]);
  });

  it('names nothing that is not in the tree', () => {
    expect(staleInLayout(entries, files)).toEqual([]);
  });
});
