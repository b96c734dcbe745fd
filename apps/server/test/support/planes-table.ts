import type { LayoutEntry } from './readme-layout.ts';

/**
 * The Planes table of docs/architecture.md against the tree. Pure functions over text and path
 * lists, so the test can plant a folder outside every row or a path that is not there.
 */

export interface PlaneRow {
  plane: string;
  routes: string[];
  source: string[];
  tables: string[];
  doc: string[];
  tests: string[];
}

const COLUMNS = ['Plane', 'Routes', 'Source', 'Tables', 'Doc', 'Tests'] as const;
/** A path from the repository's root; any other path is under apps/server/src or test. */
const FROM_ROOT = /^(apps|packages|clients)\//;

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

/** The rows of the table under `## Planes`, each cell's backticked names as a list. */
export function planeRows(markdown: string): PlaneRow[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Planes\n')) ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const [header, , ...body] = lines;
  if (header === undefined || cells(header).join() !== COLUMNS.join())
    throw new Error(`the Planes table's header is not ${COLUMNS.join(' | ')}`);
  return body.map((line) => {
    const [plane = '', routes = '', source = '', tables = '', doc = '', tests = ''] = cells(line);
    return {
      plane,
      routes: codes(routes),
      source: codes(source),
      tables: codes(tables),
      doc: codes(doc),
      tests: codes(tests),
    };
  });
}

/** A cell's path from the repository's root. */
function fromRoot(path: string, under: 'src' | 'test'): string {
  return FROM_ROOT.test(path) ? path : `apps/server/${under}/${path}`;
}

/** Every path of the table from the repository's root, documents included. */
export function tablePaths(rows: readonly PlaneRow[]): string[] {
  return rows.flatMap((row) => [
    ...row.routes.map((p) => fromRoot(p, 'src')),
    ...row.source.map((p) => fromRoot(p, 'src')),
    ...row.tests.map((p) => fromRoot(p, 'test')),
    ...row.doc,
  ]);
}

/** Paths of the table that are not in the tree (files, or folders ending in `/`). */
export function missingPaths(rows: readonly PlaneRow[], files: readonly string[]): string[] {
  return tablePaths(rows).filter((path) =>
    path.endsWith('/') ? !files.some((f) => f.startsWith(path)) : !files.includes(path),
  );
}

/** Tables a row names that db/schema.ts does not declare. */
export function unknownTables(rows: readonly PlaneRow[], schema: string): string[] {
  const declared = new Set([...schema.matchAll(/pgTable\(\s*'([a-z_]+)'/g)].map((m) => m[1]));
  return rows.flatMap((row) => row.tables.filter((table) => !declared.has(table)));
}

/** The folders of apps/server/src a row names (routes and source), as `x/` or `x/y/`. */
export function tableServerFolders(rows: readonly PlaneRow[]): string[] {
  const named = rows.flatMap((row) => [...row.routes, ...row.source]);
  return [...new Set(named.filter((p) => p.endsWith('/') && !FROM_ROOT.test(p)))].sort();
}

/** Every folder of apps/server/src, nested ones included, from the repository's file list. */
export function serverFolders(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    if (!file.startsWith('apps/server/src/')) continue;
    const parts = file.slice('apps/server/src/'.length).split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...folders].sort();
}

/** Folders of apps/server/src that no row of the table names. */
export function foldersOutsideRows(rows: readonly PlaneRow[], folders: readonly string[]) {
  const named = new Set(tableServerFolders(rows));
  return folders.filter((folder) => !named.has(folder));
}

/** The folders of apps/server/src the README's Layout names. */
export function layoutServerFolders(entries: readonly LayoutEntry[]): string[] {
  const prefix = 'apps/server/src/';
  return entries
    .map((entry) => entry.path)
    .filter((path) => path.startsWith(prefix) && path.endsWith('/'))
    .map((path) => path.slice(prefix.length))
    .sort();
}

/** Folders of apps/server/test that set-up and data keep, mirroring no source folder. */
const TEST_ONLY = ['support/', 'fixtures/'];

/** Test folders (nested ones included) with no source folder of the same path. */
export function unmirroredTestFolders(files: readonly string[]): string[] {
  const source = new Set(serverFolders(files));
  const tests = serverFolders(
    files
      .filter((f) => f.startsWith('apps/server/test/'))
      .map((f) => `apps/server/src/${f.slice('apps/server/test/'.length)}`),
  );
  return tests.filter(
    (folder) => !source.has(folder) && !TEST_ONLY.some((only) => folder.startsWith(only)),
  );
}
