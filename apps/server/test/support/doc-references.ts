import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * References from code and docs to places in the repository's documents. The one form for a
 * section is an anchor, `docs/decisions/ingest.md#events` (or a Markdown link to it), which GitHub
 * renders and this checker resolves. Three things fail: an anchor no heading of that document
 * makes, a relative link to a file that is not there, and a section sign (a numbered section of
 * a document the repository does not hold; only an RFC's sections are cited that way). A
 * document followed by its section's name in quotes is refused too: that older form rots unseen.
 */

export interface Broken {
  file: string;
  line: number;
  reference: string;
  reason: string;
}

/** What the checker reads: text files of the kinds that carry comments or prose. */
export const SCANNED = /\.(md|ts|tsx|mts|js|mjs|cjs|py|java|sh|toml|ya?ml)$/;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown document offers, repeats numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} +(.*?) *#*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface Tree {
  /** The text of a repository path, or null when there is no such file. */
  read(path: string): string | null;
  /** Whether a repository path is a file or a folder of the tree. */
  exists(path: string): boolean;
}

/** Links are read in Markdown only: in code, a bracket before a parenthesis is an index or a call. */
const LINK = /\]\(([^)\s]+)\)/g;
/** A document and anchor written bare, as in a code comment; not the tail of a URL. */
const ANCHORED = /(?<![\w/:.-])((?:[\w.-]+\/)*[\w.-]+\.md)#([\w-]+)/g;
const SECTION_SIGN = /\u00a7/g;
const RFC_SECTION = /RFC \d+ $/;
const QUOTED_SECTION = /[\w.-]+\.md`?,? \(?["“'][A-Z]/g;

/** Where a relative path written in `file` points: beside the file, else from the root. */
function resolveFrom(tree: Tree, file: string, target: string): string | null {
  for (const candidate of [join(dirname(file), target), target]) {
    const path = normalize(candidate);
    if (!path.startsWith('..') && tree.exists(path)) return path;
  }
  return null;
}

function anchorProblem(tree: Tree, file: string, target: string, anchor: string): string | null {
  const document = target === '' ? file : resolveFrom(tree, file, target);
  if (document === null) return `${target} is not in the repository`;
  const text = tree.read(document);
  if (text === null) return `${document} is not a file`;
  return anchorsOf(text).has(anchor)
    ? null
    : `${document} has no heading with the anchor #${anchor}`;
}

function lineBroken(tree: Tree, file: string, text: string): Omit<Broken, 'file' | 'line'>[] {
  const found: Omit<Broken, 'file' | 'line'>[] = [];
  const anchoredInLinks = new Set<string>();
  const links = file.endsWith('.md') ? text.matchAll(LINK) : [];
  for (const [reference, target = ''] of links) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    if (anchor !== undefined) {
      anchoredInLinks.add(target);
      const reason = anchorProblem(tree, file, path, anchor);
      if (reason) found.push({ reference, reason });
    } else if (path !== '' && resolveFrom(tree, file, path) === null) {
      found.push({ reference, reason: `${path} is not in the repository` });
    }
  }
  for (const [reference, path = '', anchor = ''] of text.matchAll(ANCHORED)) {
    if ([...anchoredInLinks].some((target) => target.endsWith(reference))) continue;
    const reason = anchorProblem(tree, file, path, anchor);
    if (reason) found.push({ reference, reason });
  }
  for (const match of text.matchAll(SECTION_SIGN)) {
    if (RFC_SECTION.test(text.slice(Math.max(0, match.index - 12), match.index))) continue;
    const reference = text.slice(Math.max(0, match.index - 12), match.index + 4).trim();
    found.push({ reference, reason: 'a section of a document outside the repository' });
  }
  for (const [reference] of text.matchAll(QUOTED_SECTION))
    found.push({
      reference,
      reason: 'name the section by its anchor, after the document and a hash',
    });
  return found;
}

/** Every broken reference of one file's text. */
export function brokenReferences(tree: Tree, file: string, text: string): Broken[] {
  return text
    .split('\n')
    .flatMap((lineText, index) =>
      lineBroken(tree, file, lineText).map((broken) => ({ file, line: index + 1, ...broken })),
    );
}

/** The repository on disk, limited to the files git keeps (`repositoryFiles`). */
export function diskTree(root: string, files: readonly string[]): Tree {
  const all = new Set(files);
  const folders = new Set(
    files.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  return {
    read: (path) => (all.has(path) ? readFileSync(join(root, path), 'utf8') : null),
    exists: (path) => all.has(path) || folders.has(path.replace(/\/$/, '')),
  };
}
