import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, inject, it } from 'vitest';

const root = inject('packageRoot');
const internalDir = fileURLToPath(new URL('../src/internal', import.meta.url));

/** The shared class both entry points extend: its name shows, its members must all be public API. */
const SHARED_BASE = 'ArbiterClient';
const PUBLIC_METHODS = [
  'ready',
  'assign',
  'getPrompt',
  'getVariables',
  'track',
  'wrap',
  'withUser',
  'withPrompt',
  'interceptModelCall',
  'evaluate',
  'flush',
  'close',
  'stats',
];
const SHARED_EXPORTS = [
  'Arbiter',
  'ArbiterError',
  'Attributes',
  'ClientStats',
  'DatasetItem',
  'EvaluateOptions',
  'EvaluationProgress',
  'EvaluationScorer',
  'EvaluationTask',
  'EvaluationTaskInput',
  'EventType',
  'FunctionScorer',
  'Logger',
  'OfflineComparison',
  'OfflineCoverage',
  'OfflineNonDeterminism',
  'OfflineRun',
  'PreparedAttributes',
  'PromptGetOptions',
  'PromptMessage',
  'PromptResult',
  'PromptsApi',
  'ResolvedPrompt',
  'renderPrompt',
  'ScoreInput',
  'ScorerDirection',
  'ServerScorer',
  'TrackPayload',
];
const ENTRY_EXPORTS: Record<string, string[]> = {
  index: [...SHARED_EXPORTS, 'NodeArbiterOptions'],
  browser: [...SHARED_EXPORTS, 'BrowserArbiterOptions'],
  'ai-sdk': [
    'arbiterMiddleware',
    'ArbiterInstance',
    'ArbiterLanguageModelMiddleware',
    'ArbiterMiddlewareOptions',
    'LanguageModelCallOptionsLike',
    'LanguageModelLike',
    'WrapGenerateOptions',
    'WrapStreamOptions',
  ],
  langchain: ['ArbiterCallbackHandler', 'ArbiterCallbackHandlerOptions', 'ArbiterInstance'],
};
/** The entry points that declare the shared client class. */
const CLIENT_ENTRIES = new Set(['index', 'browser']);

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function topLevelNames(source: ts.SourceFile): string[] {
  return source.statements.flatMap((s) => {
    if (ts.isVariableStatement(s))
      return s.declarationList.declarations.map((d) => d.name.getText(source));
    const name = (s as { name?: ts.Node }).name;
    return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
  });
}

/** Every name declared at the top of a module under src/internal/ (ArbiterEvent included). */
function internalNames(): Set<string> {
  const names = readdirSync(internalDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => topLevelNames(parse(join(internalDir, f))));
  return new Set(names.filter((n) => n !== SHARED_BASE));
}

function exportedNames(source: ts.SourceFile): string[] {
  return source.statements
    .filter(ts.isExportDeclaration)
    .flatMap((d) =>
      d.exportClause !== undefined && ts.isNamedExports(d.exportClause)
        ? d.exportClause.elements.map((e) => e.name.text)
        : [],
    )
    .sort();
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

const declarationFiles = Object.keys(ENTRY_EXPORTS).flatMap((entry) =>
  ['d.ts', 'd.cts'].map((ext) => [entry, `${entry}.${ext}`] as const),
);

describe('the published declarations show only the public surface', () => {
  const internal = internalNames();

  it('the internal names are found (the check below is not empty)', () => {
    expect(internal).toContain('ArbiterEvent');
    expect(internal).toContain('Platform');
    expect(internal).toContain('ConfigStore');
    expect(internal).toContain('ResultUploader');
  });

  for (const [entry, file] of declarationFiles) {
    describe(file, () => {
      const source = parse(join(root, 'dist', file));

      it('exports exactly the public names of its build', () => {
        expect(exportedNames(source)).toEqual([...(ENTRY_EXPORTS[entry] ?? [])].sort());
      });

      it('names nothing from src/internal/', () => {
        const leaked = new Set<string>();
        walk(source, (n) => {
          if (ts.isIdentifier(n) && internal.has(n.text)) leaked.add(n.text);
        });
        expect([...leaked]).toEqual([]);
      });

      it('has no private or protected member, only the #private marker', () => {
        const hidden: string[] = [];
        walk(source, (n) => {
          if (ts.isPrivateIdentifier(n) && n.text !== '#private') hidden.push(n.text);
          const flags = ts.canHaveModifiers(n) ? ts.getModifiers(n) : undefined;
          for (const m of flags ?? []) {
            if (
              m.kind === ts.SyntaxKind.PrivateKeyword ||
              m.kind === ts.SyntaxKind.ProtectedKeyword
            )
              hidden.push(n.getText(source));
          }
        });
        expect(hidden).toEqual([]);
      });

      if (CLIENT_ENTRIES.has(entry)) {
        it('the shared base class holds the public methods and no constructor', () => {
          const base = source.statements.find(
            (s): s is ts.ClassDeclaration =>
              ts.isClassDeclaration(s) && s.name?.text === SHARED_BASE,
          );
          expect(base).toBeDefined();
          const members = (base?.members ?? []).map((m) =>
            m.name === undefined ? ts.SyntaxKind[m.kind] : m.name.getText(source),
          );
          expect(members).toEqual(['#private', 'prompts', ...PUBLIC_METHODS]);
        });
      }
    });
  }
});
