import { ArbiterClient } from './internal/client.ts';
import { browserPlatform } from './internal/platform-browser.ts';
import type { ArbiterOptions } from './types.ts';

export type {
  ArbiterEvent,
  ArbiterOptions,
  ClientStats,
  EventType,
  Logger,
  PromptResult,
  TrackPayload,
} from './types.ts';

/**
 * Arbiter for browsers (and other runtimes without Node built-ins): the key is passed
 * explicitly, spilled events go to IndexedDB, and the queue is flushed when the page is hidden.
 */
export class Arbiter extends ArbiterClient {
  constructor(options: ArbiterOptions) {
    super(options, browserPlatform);
  }
}
