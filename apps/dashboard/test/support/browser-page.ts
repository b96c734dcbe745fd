import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { launch, watchConsole } from './browser.ts';
import { serveEmbedded, type TestServer } from './server.ts';

export interface BrowserPage {
  server: TestServer;
  browser: Browser;
  page: Page;
  consoleWatch: ReturnType<typeof watchConsole>;
}

/**
 * A browser test file's frame: one embedded server (with the settings given) and one Chromium
 * for the file, a fresh 1280×900 page for each test, and no console error left at a test's end
 * beyond a problem the test said it provokes. The fields are filled by the hooks it registers,
 * so a file reads them in its own hooks and tests, never at load time.
 */
export function browserTestFrame(env: Record<string, string> = {}): BrowserPage {
  const frame = {} as BrowserPage;
  beforeAll(async () => {
    frame.server = await serveEmbedded(env);
    frame.browser = await launch();
  });
  afterAll(async () => {
    await frame.browser?.close();
    await frame.server?.stop();
  });
  beforeEach(async () => {
    const context = await frame.browser.newContext({ viewport: { width: 1280, height: 900 } });
    frame.page = await context.newPage();
    frame.consoleWatch = watchConsole(frame.page);
  });
  afterEach(async () => {
    await frame.page.context().close();
    expect(frame.consoleWatch.errors).toEqual([]);
  });
  return frame;
}
