import { execFileSync } from 'node:child_process';

/**
 * The README's Layout against the tree. Pure functions over text and path lists, so the test
 * can plant a missing or a stale folder in a small fixture; `repositoryFiles` is the one reader.
 */

/** Folders whose every child folder the Layout names: the workspaces and the server's layers. */
const LISTED_CHILDREN = [
  'apps/',
  'packages/',
  'clients/',
  'apps/server/src/',
  'apps/server/src/routes/',
];
/** A Layout line for something git ignores (a build output) says so, and is not looked for. */
const NOT_IN_GIT = '(not in git)';

export interface LayoutEntry {
  path: string;
  description: string;
}

/**
 * The entries of the fenced block under `## Layout`: one path per line, an indented line
 * continuing the path of the nearest less-indented line above it (`  src/http/` under
 * `apps/server/` is `apps/server/src/http/`).
 */
export function layoutEntries(readme: string): LayoutEntry[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Layout\n')) ?? '';
  const block = section.split('```')[1] ?? '';
  const parents: { indent: number; path: string }[] = [];
  const entries: LayoutEntry[] = [];
  for (const line of block.split('\n')) {
    const match = /^( *)(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, spaces = '', token = '', description = ''] = match;
    while (parents.length > 0 && (parents.at(-1)?.indent ?? 0) >= spaces.length) parents.pop();
    const path = (parents.at(-1)?.path ?? '') + token;
    parents.push({ indent: spaces.length, path });
    entries.push({ path, description });
  }
  return entries;
}

/** The folders the Layout must name, from the repository's file list (paths with `/`). */
export function requiredFolders(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    if (parts.length > 1) folders.add(`${parts[0]}/`);
    for (const parent of LISTED_CHILDREN) {
      if (!file.startsWith(parent)) continue;
      const rest = file.slice(parent.length).split('/');
      if (rest.length > 1) folders.add(`${parent}${rest[0]}/`);
    }
  }
  return [...folders].sort();
}

/** Required folders that no Layout entry names, itself or through a path inside it. */
export function missingFromLayout(entries: readonly LayoutEntry[], required: readonly string[]) {
  return required.filter((folder) => !entries.some((entry) => entry.path.startsWith(folder)));
}

/** Layout entries that name nothing in the repository (a renamed or removed folder or file). */
export function staleInLayout(entries: readonly LayoutEntry[], files: readonly string[]) {
  return entries
    .filter((entry) => !entry.description.includes(NOT_IN_GIT))
    .filter((entry) => !files.some((file) => file === entry.path || file.startsWith(entry.path)))
    .map((entry) => entry.path);
}

/** Every file of the working tree git would keep: tracked, or new and not ignored. */
export function repositoryFiles(root: string): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return out.split('\0').filter((path) => path !== '');
}
