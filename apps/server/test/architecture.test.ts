import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md, checked on the source itself: one-way imports
 * (no layer below the routes reaches the HTTP edge), no import cycle, and short functions.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const BELOW_ROUTES = ['domain/', 'ingest/', 'analysis/'];
const EDGE = ['http/', 'routes/'];
const MAX_FUNCTION_LINES = 60;
/**
 * Functions still over the limit, each with the reason; the list only shrinks. The CSV records
 * reader came with csv-parse (issue 11 part 7) and is split in its own branch.
 */
const KNOWN_LONG = new Set(['ingest/import/csv-records.ts:66']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const name = (path: string) => relative(SRC, path).split('\\').join('/');

/** Every relative import (type-only ones included) of each file, as paths under src/. */
const imports = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const local = importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => name(resolve(dirname(file), spec)));
    return [name(file), local];
  }),
);

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of imports.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of imports.keys()) if (!state.has(file)) visit(file);
  return found;
}

function longFunctions(): string[] {
  const long: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const walk = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const where = `${name(file)}:${start + 1}`;
        if (end - start + 1 > MAX_FUNCTION_LINES && !KNOWN_LONG.has(where))
          long.push(`${where} (${end - start + 1} lines)`);
      }
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
  return long;
}

describe('the layers of apps/server/src', () => {
  it('keep domain, ingest and analysis free of imports from the HTTP edge', () => {
    const offending = [...imports].flatMap(([file, targets]) =>
      BELOW_ROUTES.some((layer) => file.startsWith(layer))
        ? targets
            .filter((t) => EDGE.some((edge) => t.startsWith(edge)))
            .map((t) => `${file} → ${t}`)
        : [],
    );
    expect(offending).toEqual([]);
  });

  it('have no import cycle', () => {
    expect(cycles().map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it(`have no function longer than ${MAX_FUNCTION_LINES} lines`, () => {
    expect(longFunctions()).toEqual([]);
  });
});
