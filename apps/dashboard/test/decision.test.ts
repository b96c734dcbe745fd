import type { Locator, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MetricResult, Results } from '../src/api/client.ts';
import { armValue, effectValue, percent, pValue } from '../src/pages/results/format.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import { type Api, call, createExperiment, newOrg, signIn } from './support/seed.ts';
import {
  DECISION_METRICS,
  type DecisionExperiment,
  seedDecisionOrg,
} from './support/seed-decision.ts';
import type { TestServer } from './support/server.ts';

/**
 * The decision views in Chromium: the verdict, the guardrail banner and their colours, a manual run's
 * always-valid interval and p-values, and per-arm values. Every number the page must show is
 * read from the real server's answer in the same test, then formatted as the page formats it.
 * Each test seeds an org of its own with the experiments it reads, and signs in to it.
 */
let server: TestServer;
let api: Api;
let page: Page;
let consoleWatch: BrowserPage['consoleWatch'];

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const results = (id: string, run?: string): Promise<Results> =>
  call(api, 'GET', `/v1/experiments/${id}/results${run ? `?day=${encodeURIComponent(run)}` : ''}`);

const row = (r: MetricResult) => page.getByTestId(`row-${r.metric}-${r.treatment}`);
const cell = (r: MetricResult, name: string) => row(r).getByTestId(name);
const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** A CSS colour's channels, to tell green (better, ship) from red (worse, keep control). */
async function hue(l: Locator, property: 'background-color' | 'border-top-color') {
  const css = await l.evaluate((e, p) => getComputedStyle(e).getPropertyValue(p), property);
  const [r = 0, g = 0, b = 0] = (css.match(/\d+/g) ?? []).map(Number);
  if (g > r && g > b) return 'green';
  if (r > g && r > b) return 'red';
  return 'grey';
}

async function openResults(id: string) {
  await page.goto(`${server.url}/experiments/${id}/results`);
  await page.getByTestId('verdict').waitFor();
}

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

const signInAs = (org: string) =>
  signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });

/** An org with the experiments named and their nightly run (see seedDecisionOrg), signed in. */
async function decidedOrgSignedIn<N extends DecisionExperiment>(names: readonly N[]) {
  const seeded = await seedDecisionOrg(server.url, server.dataDir, names);
  api = seeded.api;
  await signInAs(seeded.org);
  return seeded.ids;
}

describe('decisions on the results page, in Chromium against the real server', () => {
  it('shows the verdict, the guardrail banner and better/worse in green and red', async () => {
    const ids = await decidedOrgSignedIn(['ship', 'keepControl', 'undecided']);
    const run = await results(ids.ship);
    expect(run.decision.recommendation).toBe('ship');
    expect(run.guardrail_violations.length).toBeGreaterThan(0);
    await openResults(ids.ship);
    const verdict = page.getByTestId('verdict');
    await expect(verdict.getAttribute('data-recommendation')).resolves.toBe('ship');
    const verdictText = await text(verdict);
    expect(verdictText).toContain(`Ship ${run.decision.treatment}`);
    for (const reason of run.decision.reasons) expect(verdictText).toContain(reason);
    await expect(hue(verdict, 'background-color')).resolves.toBe('green');
    await expect(hue(verdict, 'border-top-color')).resolves.toBe('green');

    const banner = page.getByRole('alert').filter({ hasText: 'Guardrail broken' });
    await expect(hue(banner, 'background-color')).resolves.toBe('red');
    const items = banner.getByRole('listitem');
    await expect(items.count()).resolves.toBe(run.guardrail_violations.length);
    for (const v of run.guardrail_violations) {
      const kind = run.results[`${v.metric}::${v.treatment}`]?.kind ?? '';
      const line = await text(page.getByTestId(`violation-${v.metric}-${v.treatment}`));
      expect(line).toContain(`${v.metric} on ${v.treatment}: ${effectValue(kind, v.effect)}`);
      expect(line).toContain(`${effectValue(kind, v.ci_low)} to ${effectValue(kind, v.ci_high)}`);
      expect(line).toContain(`FDR-adjusted p ${pValue(v.p_value_fdr)}`);
    }

    // Each row's badge says the API's outcome, green for better and red for worse.
    const seen = new Set<string>();
    for (const r of Object.values(run.results)) {
      const badge = row(r).locator('.badge');
      if (r.outcome === 'inconclusive') {
        await expect(text(badge.first())).resolves.toBe('not significant');
        continue;
      }
      seen.add(r.outcome);
      await expect(text(badge)).resolves.toBe(`${r.outcome} (significant)`);
      await expect(hue(badge, 'background-color')).resolves.toBe(
        r.outcome === 'better' ? 'green' : 'red',
      );
    }
    expect([...seen].sort()).toEqual(['better', 'worse']);
    // Each metric's direction, as the run computed it.
    for (const r of Object.values(run.results))
      await expect(text(page.getByTestId(`direction-${r.metric}`))).resolves.toBe(
        r.direction === 'decrease' ? '↓ lower is better' : '↑ higher is better',
      );
    // A passed SRM check is shown too.
    await expect(text(page.getByTestId('srm-passed'))).resolves.toBe('SRM check passed');
    await check('results-decision');

    // Keep control: red, no treatment named, the broken guardrail in the banner.
    const kept = await results(ids.keepControl);
    expect(kept.decision.recommendation).toBe('keep_control');
    await openResults(ids.keepControl);
    await expect(verdict.getAttribute('data-recommendation')).resolves.toBe('keep_control');
    await expect(text(verdict)).resolves.toContain('Keep control');
    await expect(hue(verdict, 'background-color')).resolves.toBe('red');
    await expect(banner.getByRole('listitem').count()).resolves.toBe(
      kept.guardrail_violations.length,
    );
    await check('results-keep-control');

    // The list counts broken guardrails per experiment, as the summary does.
    const summary: Array<{ experiment_id: string; guardrail_violation_count: number }> = await call(
      api,
      'GET',
      '/v1/results/summary',
    );
    const count = (id: string) =>
      summary.find((s) => s.experiment_id === id)?.guardrail_violation_count ?? 0;
    await page.getByRole('link', { name: 'Experiments' }).click();
    const listRow = (name: string) => page.getByRole('row').filter({ hasText: name });
    await listRow('slow-copy')
      .getByText(`${count(ids.keepControl)} guardrail`)
      .waitFor();
    await listRow('three-arms')
      .getByText(`${count(ids.ship)} guardrail`)
      .waitFor();
    await expect(listRow('small-lift').getByText('guardrail').count()).resolves.toBe(0);
    await check('experiments-guardrails');
  });

  it('shows a manual run’s always-valid interval and p-values, the fixed-horizon ones after them', async () => {
    const ids = await decidedOrgSignedIn(['manual']);
    await page.goto(`${server.url}/experiments/${ids.manual}/results`);
    await page.getByTestId('verdict').waitFor();
    await page.getByRole('button', { name: 'Run preliminary analysis' }).click();
    await expect.poll(() => page.url()).toContain('run=manual-');
    await page.getByText('Preliminary (manual) run').waitFor();
    const label = new URL(page.url()).searchParams.get('run') ?? '';
    const run = await results(ids.manual, label);
    expect(run.preliminary).toBe(true);
    await page
      .getByRole('columnheader', { name: 'Always-valid FDR-adjusted p-value' })
      .first()
      .waitFor();
    await page
      .getByRole('columnheader', { name: 'Effect (always-valid 95% CI)' })
      .first()
      .waitFor();
    for (const r of Object.values(run.results)) {
      const s = r.sequential;
      if (!s) throw new Error(`no sequential values for ${r.metric}::${r.treatment}`);
      const interval = `(${effectValue(r.kind, s.ci_low)} to ${effectValue(r.kind, s.ci_high)})`;
      await expect(text(cell(r, 'interval'))).resolves.toBe(interval);
      await expect(text(cell(r, 'p-fdr'))).resolves.toBe(pValue(s.p_value_fdr));
      await expect(text(cell(r, 'p'))).resolves.toBe(pValue(s.p_value));
      // The fixed-horizon values are there, secondary, and differ from the always-valid ones.
      const fixed = `95% CI ${effectValue(r.kind, r.ci_low)} to ${effectValue(r.kind, r.ci_high)}, p ${pValue(r.p_value)}, FDR p ${pValue(r.p_value_fdr)}`;
      await expect(text(cell(r, 'fixed-horizon'))).resolves.toBe(fixed);
      expect(interval).not.toBe(
        `(${effectValue(r.kind, r.ci_low)} to ${effectValue(r.kind, r.ci_high)})`,
      );
    }
    await expect(page.getByTestId('verdict').getAttribute('data-recommendation')).resolves.toBe(
      run.decision.recommendation,
    );
    await check('results-manual-always-valid');
  });

  it('shows per-arm values with their n, and effects in the metric’s unit, equal to the API’s', async () => {
    const ids = await decidedOrgSignedIn(['ship', 'undecided']);
    for (const id of [ids.ship, ids.undecided]) {
      const run = await results(id);
      await openResults(id);
      for (const r of Object.values(run.results)) {
        for (const [arm, testid] of [
          [r.control, 'control-value'],
          [r.treatment, 'treatment-value'],
        ] as const)
          await expect(text(cell(r, testid))).resolves.toBe(
            `${armValue(r.kind, r.mean_per_arm[arm])} (n = ${r.n_per_arm[arm]})`,
          );
        await expect(text(cell(r, 'effect'))).resolves.toContain(effectValue(r.kind, r.effect));
        await expect(text(cell(r, 'lift'))).resolves.toBe(percent(r.lift));
        await expect(text(cell(r, 'interval'))).resolves.toBe(
          `(${effectValue(r.kind, r.ci_low)} to ${effectValue(r.kind, r.ci_high)})`,
        );
      }
      if (run.decision.recommendation === 'keep_collecting') {
        // An inconclusive primary metric says how long to wait, from the API's estimate.
        const checkout = run.results['checkout::treatment'];
        if (checkout?.users_needed_per_arm == null) throw new Error('no estimate for checkout');
        const wait = await text(cell(checkout, 'wait'));
        expect(wait).toContain(`about ${checkout.days_to_decision} more day`);
        expect(wait).toContain(`${checkout.users_needed_per_arm} users per arm`);
      }
      await check(`results-per-arm-${run.decision.recommendation}`);
    }
  });

  it('lets the editor set direction, MDE and a guardrail, and shows the API’s problem for a bad MDE', async () => {
    const org = await newOrg(server.url, 'acme-decide');
    api = org.api;
    await signInAs(org.org);
    const id = await createExperiment(
      api,
      `edit-${Date.now().toString(36)}`,
      { control: 50, treatment: 50 },
      DECISION_METRICS.slice(0, 1),
    );
    await page.goto(`${server.url}/experiments/${id}/edit`);
    await page.getByLabel('Category of checkout').selectOption('guardrail');
    await page.getByLabel('Direction of checkout').selectOption('decrease');
    await page.getByLabel(/^MDE of checkout/).fill('0.02');
    await check('experiment-edit-decision');
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByRole('caption').filter({ hasText: 'Versions, newest first' }).waitFor();
    const stored = await call(api, 'GET', `/v1/experiments/${id}`);
    expect(stored.metrics[0]).toMatchObject({
      name: 'checkout',
      category: 'guardrail',
      direction: 'decrease',
      mde: 0.02,
    });

    // The same bad change through the API: the page shows that problem's pointer and detail.
    const bad = { ...stored.metrics[0], mde: -1 };
    const res = await fetch(`${server.url}/v1/experiments/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metrics: [bad] }),
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: Array<{ pointer: string; detail: string }> };
    expect(problem.errors.map((e) => e.pointer)).toContain('#/metrics/0/mde');
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel(/^MDE of checkout/).fill('-1');
    await consoleWatch.expecting(400, async () => {
      await page.getByRole('button', { name: 'Save new version' }).click();
      const alert = page.getByRole('alert').filter({ hasText: '/metrics/0/mde' });
      await alert.waitFor();
      const shown = await text(alert);
      for (const e of problem.errors) expect(shown).toContain(`${e.pointer}: ${e.detail}`);
    });
    await check('experiment-edit-bad-mde');
    expect((await call(api, 'GET', `/v1/experiments/${id}`)).version).toBe(2);
  });
});
