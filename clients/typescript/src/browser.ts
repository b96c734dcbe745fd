import { ArbiterClient } from './internal/client.ts';
import { browserPlatform } from './internal/platform-browser.ts';
import type { BrowserArbiterOptions } from './options.ts';

export * from './entry-exports.ts';
export type { BrowserArbiterOptions } from './options.ts';

/**
 * Arbiter for browsers (and other runtimes without Node built-ins): the key is passed
 * explicitly, spilled events go to IndexedDB, and the queue is flushed when the page is hidden.
 */
export class Arbiter extends ArbiterClient {
  /** Throws an `ArbiterError` when `apiKey` is empty. */
  constructor(options: BrowserArbiterOptions) {
    super(options, browserPlatform(options));
  }
}
