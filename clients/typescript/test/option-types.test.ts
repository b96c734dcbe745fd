import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, inject, it } from 'vitest';

const root = inject('packageRoot');
const typesRoot = join(__dirname, '../../../node_modules/@types');

/** A consumer file of the built package: what a user writes, checked by the compiler. */
const consumer = (body: string) => `import { Arbiter } from '@arbiter/client';\n${body}\n`;

interface Found {
  code: number;
  message: string;
}

/**
 * Type-checks each snippet as its own file of one program, resolving `@arbiter/client` through
 * the package's exports map as a Node or a browser (bundler) project would.
 */
function check(
  build: 'node' | 'browser',
  snippets: Record<string, string>,
): { files: string[]; errors: Record<string, Found[]> } {
  const options: ts.CompilerOptions =
    build === 'node'
      ? {
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          types: ['node'],
          typeRoots: [typesRoot],
        }
      : {
          module: ts.ModuleKind.ESNext,
          moduleResolution: ts.ModuleResolutionKind.Bundler,
          customConditions: ['browser'],
          lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
          types: [],
        };
  const paths = Object.entries(snippets).map(([name, body]) => {
    const path = join(root, `options-${build}-${name}.mts`);
    writeFileSync(path, consumer(body));
    return [name, path] as const;
  });
  const program = ts.createProgram(
    paths.map(([, path]) => path),
    { ...options, strict: true, noEmit: true, target: ts.ScriptTarget.ES2022 },
  );
  const errors: Record<string, Found[]> = {};
  for (const [name, path] of paths) {
    errors[name] = ts.getPreEmitDiagnostics(program, program.getSourceFile(path)).map((d) => ({
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  }
  return { files: program.getSourceFiles().map((f) => f.fileName), errors };
}

describe('Node options', () => {
  let result: ReturnType<typeof check>;
  beforeAll(() => {
    result = check('node', {
      fromEnv: 'void new Arbiter();',
      withFile: `void new Arbiter({ apiKey: 'k', offlineStorePath: '/var/lib/app/arbiter.ndjson' });`,
      browserOption: 'void new Arbiter({ offlineStore: false });',
    });
  });

  it('resolve to the Node declarations', () => {
    expect(result.files).toContain(join(root, 'dist/index.d.ts'));
    expect(result.files).not.toContain(join(root, 'dist/browser.d.ts'));
  });

  it('compile without a key (it may come from ARBITER_API_KEY) and with offlineStorePath', () => {
    expect(result.errors.fromEnv).toEqual([]);
    expect(result.errors.withFile).toEqual([]);
  });

  it("refuse the browser's offlineStore", () => {
    expect(result.errors.browserOption).toEqual([
      { code: 2561, message: expect.stringContaining("'offlineStore' does not exist") },
    ]);
  });
});

describe('browser options', () => {
  let result: ReturnType<typeof check>;
  beforeAll(() => {
    result = check('browser', {
      withKey: `void new Arbiter({ apiKey: 'svc_pk_x', offlineStore: false });`,
      withoutKey: `void new Arbiter({ baseUrl: 'https://api.example.com' });`,
      withoutOptions: 'void new Arbiter();',
      nodeOption: `void new Arbiter({ apiKey: 'svc_pk_x', offlineStorePath: 'events.ndjson' });`,
    });
  });

  it('resolve to the browser declarations', () => {
    expect(result.files).toContain(join(root, 'dist/browser.d.ts'));
    expect(result.files).not.toContain(join(root, 'dist/index.d.ts'));
  });

  it('compile with an apiKey and offlineStore', () => {
    expect(result.errors.withKey).toEqual([]);
  });

  it('do not compile without an apiKey', () => {
    expect(result.errors.withoutKey).toEqual([
      { code: 2345, message: expect.stringContaining("Property 'apiKey' is missing") },
    ]);
    expect(result.errors.withoutOptions).toEqual([
      { code: 2554, message: 'Expected 1 arguments, but got 0.' },
    ]);
  });

  it("refuse Node's offlineStorePath", () => {
    expect(result.errors.nodeOption).toEqual([
      { code: 2561, message: expect.stringContaining("'offlineStorePath' does not exist") },
    ]);
  });
});

describe('the README', () => {
  it('documents every option of both builds in its options table', () => {
    const file = fileURLToPath(new URL('../src/options.ts', import.meta.url));
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const options = source.statements
      .filter(ts.isInterfaceDeclaration)
      .flatMap((i) => i.members.map((m) => (m.name as ts.Identifier).text));
    expect(options).toContain('offlineStorePath');
    expect(options).toContain('offlineStore');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Options'), readme.indexOf('## How it behaves'));
    for (const option of options) expect(table, option).toContain(`| \`${option}\` |`);
  });
});
