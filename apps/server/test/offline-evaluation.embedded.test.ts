import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUpPage,
  type PageOnServer,
  runPageOnFreshServer,
} from './support/page-on-fresh-server.ts';
import { runCli } from './support/process.ts';
import {
  blocks,
  DEFAULT_ADDRESS,
  fileNameOf,
  type PageRun,
  ROOT,
} from './support/runnable-page.ts';

/**
 * docs/offline-evaluation.md cannot rot: every block of it runs, in order, against a fresh
 * embedded server, as the quick start's do (`support/runnable-page.ts`), and the runs its three
 * programs made are read back here.
 */
const PAGE = join(ROOT, 'docs', 'offline-evaluation.md');
const LANGUAGES = ['TypeScript', 'Python', 'Java'];

interface Comparison {
  test: string;
  outcome: string;
  n_items: number;
  regressed_items: number;
  tied_items: number;
  p_value_fdr: number | null;
}
interface Run {
  note: string;
  status: string;
  repeats: number;
  comparisons: Record<string, Comparison>;
  gates: Record<string, { passed: boolean; reasons: string[] }>;
  coverage: { expected_results: number; received_results: number };
}

let page: PageOnServer;
let run: PageRun;
let runs: Run[];

beforeAll(async () => {
  page = await runPageOnFreshServer(PAGE, 'offline-page');
  run = page.run;
  const token = runCli(
    ['token', '--email', 'you@example.com', '--org', 'my-org', '--role', 'admin'],
    page.env,
  ).stdout;
  const res = await fetch(`${page.server.url}/v1/experiments/math-helper/offline-runs`, {
    headers: { authorization: `Bearer ${token}` },
  });
  runs = res.ok ? ((await res.json()) as Run[]) : [];
}, 600_000);

afterAll(() => cleanUpPage(page));

describe('docs/offline-evaluation.md', () => {
  it('runs every block: commands (sh), programs (python, java), and nothing else', () => {
    const page = blocks(readFileSync(PAGE, 'utf8'));
    expect(new Set(page.map((b) => b.lang))).toEqual(new Set(['sh', 'python', 'java']));
    expect(page.filter((b) => b.lang === 'python' || b.lang === 'java').map(fileNameOf)).toEqual([
      'offline_eval.py',
      'OfflineEval.java',
    ]);
    expect(page.map((b) => b.code).join('\n')).toContain(DEFAULT_ADDRESS);
  });

  it('runs from start to end against a fresh server', () => {
    expect(run.stderr.split('\n').filter((l) => l.includes('curl:'))).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('reports the bad upload row by its line and stores the other twenty', () => {
    expect(run.stdout).toMatch(/"items":20,"errors":\[\{"line":21,/);
    expect(run.stdout).toContain('"version":2');
  });

  it('has each library complete one run whose gate stops the candidate on the exact scorer', () => {
    for (const language of ['typescript', 'python', 'java'])
      expect(run.stdout).toMatch(
        new RegExp(`^${language} complete explain gate failed exact`, 'm'),
      );
    expect(runs.map((r) => r.note).sort()).toEqual([...LANGUAGES].sort());
    for (const r of runs) {
      expect(r.status, r.note).toBe('complete');
      expect(r.coverage.received_results, r.note).toBe(r.coverage.expected_results);
      expect(r.coverage.expected_results, r.note).toBe(20 * 2 * r.repeats);
      expect(r.gates.explain?.passed, r.note).toBe(false);
      expect(
        r.gates.explain?.reasons.some((reason) => reason.startsWith('exact')),
        r.note,
      ).toBe(true);
    }
  });

  it('finds every item regressed on exact match, and a tie on contains, by the test the repeats call for', () => {
    for (const r of runs) {
      const exact = r.comparisons['exact::explain'] as Comparison;
      expect(exact.test, r.note).toBe(r.repeats === 1 ? 'mcnemar_exact' : 'paired_t');
      expect(exact.outcome, r.note).toBe('worse');
      expect([exact.n_items, exact.regressed_items], r.note).toEqual([20, 20]);
      const contains = r.comparisons['mentions_answer::explain'] as Comparison;
      expect([contains.outcome, contains.tied_items], r.note).toEqual(['inconclusive', 20]);
    }
    expect(run.stdout).toMatch(/^TypeScript complete exact::explain mcnemar_exact worse/m);
    expect(run.stdout).toContain('gate failed for explain: exact');
    expect(run.stdout).toContain('the build would stop here');
  });

  it('shows the worst regressions first in the item viewer', () => {
    expect(run.stdout).toMatch(/"data":\[\{"id":"sum-/);
  });
});
