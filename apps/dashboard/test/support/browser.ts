import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type ConsoleMessage, chromium, type Page } from 'playwright-core';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/**
 * Console errors of a page. A step that deliberately provokes a server problem (a refused
 * change, the hourly cap) names the status it expects; Chromium logs that response as a failed
 * resource load, and only that line is tolerated during the step.
 */
export function watchConsole(page: Page) {
  const errors: string[] = [];
  let tolerated: number | null = null;
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (tolerated !== null && text.includes(`status of ${tolerated}`)) return;
    if (isCollectingAnswer(m)) return;
    errors.push(`${page.url()}: ${text}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return {
    errors,
    async expecting<T>(status: number, step: () => Promise<T>): Promise<T> {
      tolerated = status;
      try {
        return await step();
      } finally {
        tolerated = null;
      }
    },
  };
}

/**
 * A collecting experiment's results route answers 404 with the time-to-decision estimates the
 * collecting panel shows: the designed answer, which Chromium logs like any failed load; a
 * holdout's results route answers alike before its first nightly run. A run asked for by label
 * (`?day=`) that does not exist is still an error.
 */
function isCollectingAnswer(m: ConsoleMessage): boolean {
  const url = new URL(m.location().url, 'http://x');
  return (
    m.text().includes('status of 404') &&
    url.search === '' &&
    /^\/v1\/(experiments|holdouts)\/[^/]+\/results$/.test(url.pathname)
  );
}

/** axe-core in the page: the serious and critical violations, as readable lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.addScriptTag({ content: AXE_SOURCE });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (o: object) => Promise<unknown> } }).axe;
    return (await axe.run({ resultTypes: ['violations'] })) as {
      violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
    };
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
