import { expect } from 'vitest';
import { Arbiter, type NodeArbiterOptions } from '../../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './fake-arbiter.ts';
import { memoryLogger } from './logger.ts';

export interface QuietClient {
  client: Arbiter;
  fake: FakeArbiter;
  logger: ReturnType<typeof memoryLogger>;
}

/**
 * A ready client against a fresh fake server serving `config`, whose flush timer is an hour:
 * what the fake receives is what the test's own `flush()` sent; the fake takes `options.apiKey`
 * when given. The caller closes both.
 */
export async function startQuietClient(
  config: ConfigDoc,
  options: Partial<NodeArbiterOptions> = {},
): Promise<QuietClient> {
  const fake = await startFakeArbiter({
    config,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  const logger = memoryLogger();
  const client = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    flushIntervalMs: 3_600_000,
    logger,
    ...options,
  });
  expect(await client.ready()).toBe(true);
  return { client, fake, logger };
}
