import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { Arbiter } from '../../src/index.ts';
import type { ArbiterEvent } from '../../src/internal/wire.ts';
import { type FakeArbiter, startFakeArbiter } from './fake-arbiter.ts';
import { startFakeLlm } from './fake-llm.ts';
import { configOf, twoArms } from './fixtures.ts';
import { memoryLogger } from './logger.ts';

/** The two-arm experiment of the harness' config, by name and id. */
export const EXPERIMENT = 'checkout-prompt';
export const EXPERIMENT_ID = '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e';

export interface ModelCallHarness {
  /** The file's fake Arbiter server; what it stored is cleared before each test. */
  readonly fake: FakeArbiter;
  /** The file's fake model provider (OpenAI and Anthropic protocols). */
  readonly llm: Awaited<ReturnType<typeof startFakeLlm>>;
  /**
   * A new client for each test. It sends only when flushed and tracks no exposure of its own,
   * so a test sees exactly what the integration under test recorded.
   */
  readonly arbiter: Arbiter;
  /** Everything the fake server stored, after a flush. */
  recorded(): Promise<ArbiterEvent[]>;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is only there inside a test`);
  return value;
}

/**
 * What the tests of the model-call integrations (wrap, the AI SDK middleware, the LangChain
 * handler) share: registers the file's hooks and returns the servers and the test's client.
 */
export function useModelCallHarness(): ModelCallHarness {
  let fake: FakeArbiter | undefined;
  let llm: ModelCallHarness['llm'] | undefined;
  let arbiter: Arbiter | undefined;
  beforeAll(async () => {
    fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm?.close();
    await fake?.close();
  });
  beforeEach(async () => {
    const server = started(fake, 'the fake Arbiter');
    server.events.clear();
    arbiter = new Arbiter({
      apiKey: server.apiKey,
      baseUrl: server.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      trackExposures: false,
    });
    await arbiter.ready();
  });
  afterEach(() => arbiter?.close());
  const harness: ModelCallHarness = {
    get fake() {
      return started(fake, 'the fake Arbiter');
    },
    get llm() {
      return started(llm, 'the fake model provider');
    },
    get arbiter() {
      return started(arbiter, 'the client');
    },
    async recorded() {
      await harness.arbiter.flush();
      return [...harness.fake.events.values()];
    },
  };
  return harness;
}
