import { ArbiterClient } from './internal/client.ts';
import { nodePlatform } from './internal/platform-node.ts';
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
 * Arbiter for Node 18+: the key and address may come from `ARBITER_API_KEY` and
 * `ARBITER_BASE_URL`, spilled events go to the file `offlineStorePath`, and `withUser` follows
 * the user through awaits with AsyncLocalStorage.
 */
export class Arbiter extends ArbiterClient {
  constructor(options: ArbiterOptions = {}) {
    super(options, nodePlatform);
  }
}
