import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter, renderPrompt } from '../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { memoryLogger } from './support/logger.ts';
import { readTestdata } from './support/testdata.ts';
import { receiver } from './support/vectors.ts';

interface ResolveCase {
  name: string;
  prompt: string;
  user: string;
  label?: string;
  attributes?: Record<string, unknown>;
  variables?: Record<string, string>;
  default: string;
  expected: {
    source: string;
    version: number | null;
    experiment: string | null;
    variant: string | null;
    text: string | null;
    messages: Array<{ role: string; content: string }> | null;
    exposure: boolean;
  };
}

// The one shared copy of the prompt vectors, read in place.
const vectors = readTestdata('prompts.json') as {
  config: ConfigDoc;
  resolve: ResolveCase[];
  render: Array<{ template: string; variables: Record<string, string>; expected: string }>;
};

describe('testdata/prompts.json', () => {
  it('renders every template as the vectors say', () => {
    for (const c of vectors.render) {
      expect({ t: c.template, got: renderPrompt(c.template, c.variables) }).toEqual({
        t: c.template,
        got: c.expected,
      });
    }
  });

  describe('through client.prompts.get', () => {
    let fake: FakeArbiter;
    let client: Arbiter;
    let received: () => Array<Record<string, unknown>>;

    beforeAll(async () => {
      fake = await startFakeArbiter({ config: vectors.config });
      received = receiver(fake);
      client = new Arbiter({
        apiKey: fake.apiKey,
        baseUrl: fake.baseUrl,
        flushIntervalMs: 3_600_000,
        logger: memoryLogger(),
      });
      expect(await client.ready()).toBe(true);
    });
    afterAll(async () => {
      await client.close();
      await fake.close();
    });

    it('resolves each case to its source and version, with exactly its exposure', async () => {
      const idOf = (name: string | null) =>
        vectors.config.experiments.find((e) => e.name === name)?.id;
      for (const c of vectors.resolve) {
        const got = client.prompts.get(c.prompt, c.user, c.default, {
          ...(c.label === undefined ? {} : { label: c.label }),
          ...(c.attributes === undefined ? {} : { attributes: c.attributes }),
          ...(c.variables === undefined ? {} : { variables: c.variables }),
        });
        await client.flush();
        const sent = received().filter((e) => e.type === 'exposure');
        const { exposure, ...expected } = c.expected;
        expect({
          case: c.name,
          got: {
            source: got.source,
            version: got.version,
            experiment: got.experiment,
            variant: got.variant,
            text: got.text,
            messages: got.messages,
          },
          sent: sent.length,
        }).toEqual({
          case: c.name,
          got: expected,
          sent: exposure ? 1 : 0,
        });
        if (exposure) expect(sent[0]).toMatchObject({ user_id: c.user });
        if (c.expected.source === 'experiment')
          expect(sent[0]?.experiment_id).toBe(idOf(c.expected.experiment));
      }
    });
  });

  it('answers the default before any config, and never throws on nonsense', () => {
    const offline = new Arbiter({
      apiKey: 'svc_pk_test',
      baseUrl: 'http://127.0.0.1:9',
      logger: memoryLogger(),
      pollIntervalMs: 3_600_000,
    });
    try {
      expect(offline.prompts.get('p', 'u', 'Hi {{x}}', { variables: { x: 'X' } })).toMatchObject({
        source: 'default',
        version: null,
        text: 'Hi X',
      });
      const odd = offline.prompts.get(null as unknown as string, 7 as unknown as string, [
        { role: 'user', content: '{{x}}' },
      ]);
      expect(odd.messages).toEqual([{ role: 'user', content: '{{x}}' }]);
    } finally {
      void offline.close();
    }
  });
});
