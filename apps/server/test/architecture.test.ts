import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as pgErrorCodes from '../src/db/pg-error-codes.ts';

/**
 * The layering rules of docs/architecture.md, checked on the source itself: the layer table as
 * data (each layer's paths and the layers it may import), no import cycle, short functions
 * in the server and the dashboard, and one place for what must be done one way (reading the
 * wall clock, cutting a UTC day).
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const DASHBOARD_SRC = resolve(SRC, '../../dashboard/src');
const REPO = resolve(SRC, '../../..');
const PACKAGES = join(REPO, 'packages');
const MAX_FUNCTION_LINES = 60;
/**
 * Functions still over the limit, each with the reason; the list only shrinks. The CSV records
 * reader came with csv-parse and is split in its own branch.
 */
const KNOWN_LONG = new Set(['ingest/import/csv-records.ts:66']);

/** A function's name as the known list gives it: declared, assigned, or `constructor`. */
function functionName(node: ts.Node): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return '';
}

/** docs/architecture.md's layer table: a path prefix per layer, and what each may import. */
const LAYERS = {
  kernel: { paths: ['kernel/'], mayImport: [] },
  schemas: { paths: ['schemas/'], mayImport: ['kernel'] },
  config: { paths: ['config.ts', 'settings-schema.ts'], mayImport: ['kernel', 'schemas'] },
  data: {
    paths: ['db/', 'crypto/', 'control-file.ts'],
    mayImport: ['kernel', 'schemas'],
  },
  domain: { paths: ['domain/'], mayImport: ['data', 'kernel', 'schemas'] },
  ingest: { paths: ['ingest/'], mayImport: ['domain', 'data', 'kernel', 'schemas', 'context'] },
  analysis: {
    paths: ['analysis/'],
    mayImport: ['ingest', 'domain', 'data', 'kernel', 'schemas', 'context'],
  },
  integrations: { paths: ['integrations/'], mayImport: ['kernel', 'config'] },
  /** The MCP server over the API: it reaches the product only through the `Api` port. */
  mcp: { paths: ['mcp/'], mayImport: ['kernel'] },
  /** The `Context` type: what the wiring hands down, read by the layers as a type only. */
  context: {
    paths: ['context.ts'],
    mayImport: ['ingest', 'domain', 'data', 'config', 'kernel', 'schemas'],
  },
  http: {
    paths: ['http/'],
    mayImport: ['analysis', 'ingest', 'domain', 'integrations', 'data', 'config'].concat([
      'kernel',
      'schemas',
      'context',
    ]),
  },
  routes: {
    paths: ['routes/'],
    mayImport: [
      'http',
      'mcp',
      'analysis',
      'ingest',
      'domain',
      'integrations',
      'data',
      'config',
    ].concat(['kernel', 'schemas', 'context']),
  },
  wiring: {
    paths: [
      'create-context.ts',
      'create-logger.ts',
      'app.ts',
      'main.ts',
      'cli.ts',
      'cli-failure.ts',
      'cli/',
      'pretty-log-stream.ts',
    ].concat(['pipeline-request.ts', 'backup-request.ts', 'tracing.ts', 'demo/']),
    mayImport: ['routes', 'http', 'analysis', 'ingest', 'domain', 'integrations', 'data'].concat([
      'mcp',
      'config',
      'kernel',
      'schemas',
      'context',
      'wiring',
    ]),
  },
} satisfies Record<string, { paths: string[]; mayImport: string[] }>;
type Layer = keyof typeof LAYERS;
/** Layers that take the `Context` type, never its value. */
const TYPE_ONLY: Record<string, true> = { 'context.ts': true };

/** The layer a path under src/ belongs to; undefined for a path the table does not place. */
function layerOf(path: string): Layer | undefined {
  const entries = Object.entries(LAYERS) as [Layer, { paths: string[] }][];
  return entries.find(([, { paths }]) =>
    paths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)),
  )?.[0];
}

/** Each import that crosses into a layer its file may not import (or a value import of a type-only file). */
function forbiddenImports(graph: Map<string, Import[]>): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = layerOf(file);
    if (from === undefined) return [`${file}: in no layer of docs/architecture.md`];
    return targets.flatMap(({ path, typeOnly }) => {
      const to = layerOf(path);
      if (to === undefined || to === from) return [];
      const allowed: readonly string[] = LAYERS[from].mayImport;
      if (!allowed.includes(to)) return [`${file} → ${path} (${from} may not import ${to})`];
      if (TYPE_ONLY[path] && !typeOnly && from !== 'wiring')
        return [`${file} → ${path} (a type-only import)`];
      return [];
    });
  });
}

interface Import {
  path: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const nameUnder = (root: string, path: string) => relative(root, path).split('\\').join('/');
const name = (path: string) => nameUnder(SRC, path);

/** Every relative import (type-only ones included) of each file, as paths under src/. */
function importsOf(file: string, root = SRC): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
    const spec = statement.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return [];
    const path = nameUnder(root, resolve(dirname(file), spec.text));
    return [{ path, typeOnly: isTypeOnly(statement) }];
  });
}

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

const graph = new Map(files.map((file) => [name(file), importsOf(file)]));

/** Each file's relative imports, as paths under the same root. */
function importPaths(root: string, sources: string[]): Map<string, string[]> {
  return new Map(
    sources.map((file) => [nameUnder(root, file), importsOf(file, root).map((i) => i.path)]),
  );
}

/** The import cycles of a graph, each as the files around it, the first repeated at the end. */
function cyclesIn(imports: Map<string, string[]>): string[][] {
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

/** Functions of a source text longer than the limit, as `name:line (n lines)`. */
function longFunctionsIn(where: string, text: string): string[] {
  const kind = where.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true, kind);
  const long: string[] = [];
  const walk = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const at = `${where}:${start + 1}`;
      const known = KNOWN_LONG.has(at) || KNOWN_LONG.has(`${where}#${functionName(node)}`);
      if (end - start + 1 > MAX_FUNCTION_LINES && !known)
        long.push(`${at} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, walk);
  };
  walk(source);
  return long;
}

function longFunctions(root: string, sources: string[]): string[] {
  return sources.flatMap((file) =>
    longFunctionsIn(relative(root, file).split('\\').join('/'), readFileSync(file, 'utf8')),
  );
}

const dashboardFiles = sourceFiles(DASHBOARD_SRC).filter((f) => !f.endsWith('.d.ts'));

/** The shared packages' and the TypeScript client's sources, each root checked on its own. */
const LIBRARY_ROOTS = readdirSync(PACKAGES)
  .map((name) => join(PACKAGES, name, 'src'))
  .concat(resolve(SRC, '../../../clients/typescript/src'));
const libraries = LIBRARY_ROOTS.map((root) => ({
  root,
  sources: sourceFiles(root).filter((f) => !f.endsWith('.d.ts')),
}));

/** A construct that belongs in one place only: where it may appear, and how to spot it. */
interface OnePlaceRule {
  allowedIn: readonly string[];
  /** Folders the rule holds in; everywhere when absent. */
  holdsIn?: readonly string[];
  matches(node: ts.Node): boolean;
}

const isNumber = (node: ts.Node | undefined, value: string) =>
  node !== undefined && ts.isNumericLiteral(node) && node.text === value;

/** A UTC day cut out of an ISO instant by hand: `kernel/utc-day.ts` says how, once. */
const HAND_CUT_UTC_DAY: OnePlaceRule = {
  allowedIn: ['kernel/utc-day.ts'],
  matches: (node) => {
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
    const { expression: target, name: method } = node.expression;
    return (
      ['slice', 'substring'].includes(method.text) &&
      isNumber(node.arguments[0], '0') &&
      isNumber(node.arguments[1], '10') &&
      ts.isCallExpression(target) &&
      ts.isPropertyAccessExpression(target.expression) &&
      target.expression.name.text === 'toISOString'
    );
  },
};

/**
 * `new Date()` without an argument reads the wall clock, which a test cannot set: everything
 * reads the `Clock` it is handed, and `systemClock` is the one place the wall clock is read.
 */
const WALL_CLOCK: OnePlaceRule = {
  allowedIn: ['kernel/ports.ts'],
  matches: (node) =>
    ts.isNewExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'Date' &&
    (node.arguments?.length ?? 0) === 0,
};

const isNamed = (node: ts.Node, name: string) =>
  ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && node.typeName.text === name;

/**
 * The composition root: the only files that see the whole `Context` (its definition, the wiring
 * that builds it, the app that hands each plane its part, and the process that owns it).
 */
const COMPOSITION_ROOT = ['context.ts', 'create-context.ts', 'app.ts', 'main.ts'];

/** `Context` named as a type, or as the interface a declaration extends. */
const namesContext = (node: ts.Node) =>
  isNamed(node, 'Context') ||
  (ts.isExpressionWithTypeArguments(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'Context');

/**
 * Below the composition root, every route, plane, hook and service takes the parts of the
 * `Context` it uses (`Pick<Context, …>`, or a named set of them), never the whole: what a
 * function needs is then in its signature, a test builds only that, and a service added to
 * the root changes nothing that does not use it.
 */
const WHOLE_CONTEXT: OnePlaceRule = {
  allowedIn: COMPOSITION_ROOT,
  matches: (node) =>
    namesContext(node) &&
    !isNamed(node.parent, 'Pick') &&
    // `Context['db']` names one part, not the whole.
    !ts.isIndexedAccessTypeNode(node.parent),
};

/** The SQLSTATEs `db/pg-error-codes.ts` names: compared through their names, never as literals. */
const SQLSTATES = new Set<string>(
  (Object.values(pgErrorCodes) as unknown[]).filter(
    (v): v is string => typeof v === 'string' && v.length === 5,
  ),
);

/** A PostgreSQL error code written as a literal instead of by its name in db/pg-error-codes.ts. */
const PG_ERROR_CODE: OnePlaceRule = {
  allowedIn: ['db/pg-error-codes.ts'],
  matches: (node) =>
    (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
    SQLSTATES.has(node.text),
};

/** Lines of a source text where the rule's construct appears outside the places it allows. */
function misplacedIn(where: string, text: string, rule: OnePlaceRule): string[] {
  if (rule.allowedIn.includes(where)) return [];
  if (rule.holdsIn && !rule.holdsIn.some((folder) => where.startsWith(folder))) return [];
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const walk = (node: ts.Node) => {
    if (rule.matches(node))
      found.push(
        `${where}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`,
      );
    ts.forEachChild(node, walk);
  };
  walk(source);
  return found;
}

function misplaced(rule: OnePlaceRule): string[] {
  return files.flatMap((file) => misplacedIn(name(file), readFileSync(file, 'utf8'), rule));
}

describe('the layers of apps/server/src', () => {
  it('import only the layers docs/architecture.md allows them', () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });

  it('refuse a planted import across the table (db/ → config.ts) and a value import of context.ts', () => {
    const planted = new Map<string, Import[]>([
      ['db/connect.ts', [{ path: 'config.ts', typeOnly: true }]],
      ['ingest/accept.ts', [{ path: 'context.ts', typeOnly: false }]],
      ['domain/keys.ts', [{ path: 'http/problems.ts', typeOnly: false }]],
      ['stray.ts', []],
    ]);
    expect(forbiddenImports(planted)).toEqual([
      'db/connect.ts → config.ts (data may not import config)',
      'ingest/accept.ts → context.ts (a type-only import)',
      'domain/keys.ts → http/problems.ts (domain may not import http)',
      'stray.ts: in no layer of docs/architecture.md',
    ]);
  });

  it('have no import cycle', () => {
    expect(cyclesIn(importPaths(SRC, files)).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('refuse a planted cycle, type-only imports included', () => {
    const planted = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesIn(planted).map((cycle) => cycle.join(' → '))).toEqual([
      'a.ts → b.ts → c.ts → a.ts',
    ]);
  });

  it(`have no function longer than ${MAX_FUNCTION_LINES} lines, in the server and the dashboard`, () => {
    expect(longFunctions(SRC, files)).toEqual([]);
    expect(longFunctions(DASHBOARD_SRC, dashboardFiles)).toEqual([]);
  });

  it('count a planted long function, in .ts and in .tsx', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const a${i} = ${i};`);
    const text = ['function long() {', ...body, '}'].join('\n');
    expect(longFunctionsIn('x.ts', text)).toEqual(['x.ts:1 (62 lines)']);
    const component = ['export function Page() {', ...body, '  return <div />;', '}'].join('\n');
    expect(longFunctionsIn('Page.tsx', component)).toEqual(['Page.tsx:1 (63 lines)']);
  });

  it('refuse a planted cycle and long function in a library root read from disk', () => {
    const root = mkdtempSync(join(tmpdir(), 'arbiter-library-'));
    try {
      const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const a${i} = ${i};`);
      writeFileSync(join(root, 'a.ts'), "import type { B } from './b.ts';\nexport type A = B;\n");
      writeFileSync(
        join(root, 'b.ts'),
        ["import type { A } from './a.ts';", 'export type B = A;', 'function long() {']
          .concat(body, '}')
          .join('\n'),
      );
      const sources = sourceFiles(root);
      expect(cyclesIn(importPaths(root, sources))).toEqual([['a.ts', 'b.ts', 'a.ts']]);
      expect(longFunctions(root, sources)).toEqual(['b.ts:3 (62 lines)']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('hold in packages/* and clients/typescript too: no cycle, no long function', () => {
    expect(libraries.length).toBeGreaterThanOrEqual(5);
    const found = libraries.flatMap(({ sources }) => {
      const cycles = cyclesIn(importPaths(REPO, sources)).map((cycle) => cycle.join(' → '));
      return cycles.concat(longFunctions(REPO, sources));
    });
    expect(found).toEqual([]);
  });
});

describe('one place for each', () => {
  it('whole Context: only in the composition root, everything else takes Pick<Context, …>', () => {
    expect(misplaced(WHOLE_CONTEXT)).toEqual([]);
  });

  it('refuses a planted whole Context in a route, a plane, a hook or a service, and allows it in the root', () => {
    const text = [
      'export function register(app: App, ctx: Context): void {}',
      "export function b(ctx: Pick<Context, 'db'>) {}",
      "type Deps = Pick<Context, 'db' | 'clock'> & { extra: Context['log'] };",
      'export const plane: Plane<Context> = async () => {};',
      'interface Wide extends Context {}',
      "type AllButOne = Omit<Context, 'close'>;",
    ].join('\n');
    for (const where of [
      'routes/dashboard/get-experiment.ts',
      'routes/ingest/index.ts',
      'http/session-auth.ts',
      'analysis/run/nightly.ts',
      'domain/experiments/service.ts',
    ])
      expect(misplacedIn(where, text, WHOLE_CONTEXT)).toEqual(
        [1, 4, 5, 6].map((n) => `${where}:${n}`),
      );
    for (const where of COMPOSITION_ROOT)
      expect(misplacedIn(where, text, WHOLE_CONTEXT)).toEqual([]);
  });

  it('read of the wall clock: systemClock in kernel/ports.ts', () => {
    expect(misplaced(WALL_CLOCK)).toEqual([]);
  });

  it('refuses a planted new Date() (with or without parentheses), and allows it in kernel/ports.ts', () => {
    const text = [
      'const a = new Date();',
      'const b = new Date(0);',
      'const c = new Date(clock.now().getTime() - 1);',
      'const d = new Date;',
    ].join('\n');
    expect(misplacedIn('domain/keys.ts', text, WALL_CLOCK)).toEqual([
      'domain/keys.ts:1',
      'domain/keys.ts:4',
    ]);
    expect(misplacedIn('kernel/ports.ts', text, WALL_CLOCK)).toEqual([]);
  });

  it('UTC day is cut from an instant: kernel/utc-day.ts', () => {
    expect(misplaced(HAND_CUT_UTC_DAY)).toEqual([]);
  });

  it('refuses a planted hand-cut UTC day, and allows it in kernel/utc-day.ts', () => {
    const text = [
      'const a = at.toISOString().slice(0, 10);',
      'const b = at.toISOString().slice(0, 19);',
      'const c = new Date(t).toISOString().substring(0, 10);',
    ].join('\n');
    expect(misplacedIn('analysis/run/nightly.ts', text, HAND_CUT_UTC_DAY)).toEqual([
      'analysis/run/nightly.ts:1',
      'analysis/run/nightly.ts:3',
    ]);
    expect(misplacedIn('kernel/utc-day.ts', text, HAND_CUT_UTC_DAY)).toEqual([]);
  });
  it('PostgreSQL error code: named once, in db/pg-error-codes.ts', () => {
    expect(SQLSTATES.has('23505')).toBe(true);
    expect(misplaced(PG_ERROR_CODE)).toEqual([]);
  });

  it("refuses a planted '23505', and allows it in db/pg-error-codes.ts", () => {
    const text = [
      "const a = '23505';",
      'const b = UNIQUE_VIOLATION;',
      "const c = 'ECONNRESET';",
    ].join('\n');
    expect(misplacedIn('domain/keys.ts', text, PG_ERROR_CODE)).toEqual(['domain/keys.ts:1']);
    expect(misplacedIn('db/pg-error-codes.ts', text, PG_ERROR_CODE)).toEqual([]);
  });
});
