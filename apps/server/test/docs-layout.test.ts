import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  foldersOutsideRows,
  layoutServerFolders,
  missingPaths,
  planeRows,
  serverFolders,
  tableServerFolders,
  unknownTables,
  unmirroredTestFolders,
} from './support/planes-table.ts';
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

const FIXTURE_ARCHITECTURE = [
  '# x',
  '## Planes',
  '',
  '| Plane | Routes | Source | Tables | Doc | Tests |',
  '| --- | --- | --- | --- | --- | --- |',
  '| Edge | `routes/` | `http/`, `packages/stats/` | `orgs` | `docs/a.md` | `http/` |',
  '| Kernel | | `kernel/`, `kernel/gone.ts` | `nowhere` | `docs/a.md` | |',
  '',
  '## Next',
].join('\n');

const FIXTURE_TREE = [
  'apps/server/src/http/app.ts',
  'apps/server/src/kernel/clock.ts',
  'apps/server/src/routes/index.ts',
  'apps/server/test/http/app.test.ts',
  'docs/a.md',
  'packages/stats/src/index.ts',
];

describe('the Planes guard', () => {
  const rows = planeRows(FIXTURE_ARCHITECTURE);

  it('reads each cell as its backticked names', () => {
    expect(rows.map((row) => row.plane)).toEqual(['Edge', 'Kernel']);
    expect(rows[0]?.source).toEqual(['http/', 'packages/stats/']);
    expect(tableServerFolders(rows)).toEqual(['http/', 'kernel/', 'routes/']);
  });

  it('finds every folder of the server source, nested ones included', () => {
    expect(serverFolders([...FIXTURE_TREE, 'apps/server/src/db/shards/x.ts'])).toEqual([
      'db/',
      'db/shards/',
      'http/',
      'kernel/',
      'routes/',
    ]);
  });

  it('fails on a planted folder outside every row, a path not in the tree and an unknown table', () => {
    const planted = serverFolders([...FIXTURE_TREE, 'apps/server/src/kernel/stray/x.ts']);
    expect(foldersOutsideRows(rows, planted)).toEqual(['kernel/stray/']);
    expect(missingPaths(rows, FIXTURE_TREE)).toEqual(['apps/server/src/kernel/gone.ts']);
    expect(unknownTables(rows, "pgTable('orgs', {")).toEqual(['nowhere']);
  });

  it('fails on a planted test folder that mirrors no source folder', () => {
    const tree = [
      ...FIXTURE_TREE,
      'apps/server/test/support/x.ts',
      'apps/server/test/gone/y.test.ts',
    ];
    expect(unmirroredTestFolders(tree)).toEqual(['gone/']);
  });

  it("fails on a README Layout whose server folders differ from the table's", () => {
    const readme = ['## Layout', '```', 'apps/server/', '  src/http/', '  src/routes/', '```'];
    const named = layoutServerFolders(layoutEntries(readme.join('\n')));
    expect(named).toEqual(['http/', 'routes/']);
    expect(named).not.toEqual(tableServerFolders(rows));
  });
});

describe("docs/architecture.md's Planes", () => {
  const rows = planeRows(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
  const files = repositoryFiles(ROOT);

  it('names the planes a reader looks for', () => {
    const planes = rows.map((row) => row.plane);
    for (const plane of ['Shards', 'OTLP', 'Offline evaluation', 'Targeting', 'Billing'])
      expect(planes).toContain(plane);
  });

  it('names only paths that are in the tree and tables db/schema.ts declares', () => {
    expect(missingPaths(rows, files)).toEqual([]);
    const schema = readFileSync(join(ROOT, 'apps/server/src/db/schema.ts'), 'utf8');
    expect(unknownTables(rows, schema)).toEqual([]);
  });

  it('places every folder of apps/server/src, nested ones included, in a row', () => {
    expect(serverFolders(files).length).toBeGreaterThan(40);
    expect(foldersOutsideRows(rows, serverFolders(files))).toEqual([]);
  });

  it('has apps/server/test mirror apps/server/src, folder for folder', () => {
    expect(unmirroredTestFolders(files)).toEqual([]);
  });

  it("is the source of the README Layout's server folders", () => {
    const readme = layoutEntries(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(layoutServerFolders(readme)).toEqual(tableServerFolders(rows));
  });
});
