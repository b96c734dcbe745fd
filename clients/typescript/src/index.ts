import { ArbiterClient } from './internal/client.ts';
import { nodePlatform } from './internal/platform-node.ts';
import type { NodeArbiterOptions } from './options.ts';

export * from './entry-exports.ts';
export type { NodeArbiterOptions } from './options.ts';

/**
 * Arbiter for Node 18+: the key and address may come from `ARBITER_API_KEY` and
 * `ARBITER_BASE_URL`, spilled events go to the file `offlineStorePath`, and `withUser` follows
 * the user through awaits with AsyncLocalStorage.
 */
export class Arbiter extends ArbiterClient {
  /** Throws an `ArbiterError` when there is no API key (nor `ARBITER_API_KEY`). */
  constructor(options: NodeArbiterOptions = {}) {
    super(options, nodePlatform(options));
  }
}
