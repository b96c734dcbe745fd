import { type FakeArbiter, startFakeArbiter } from './fake-arbiter.ts';
import { configOf, twoArms } from './fixtures.ts';
import type { ArbiterTarget } from './scenarios.ts';

/** The scenarios' target backed by the fake server. */
export async function fakeTarget(): Promise<{ target: ArbiterTarget; fake: FakeArbiter }> {
  const experiment = twoArms();
  const fake = await startFakeArbiter({ config: configOf(1, experiment) });
  const target: ArbiterTarget = {
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    experiment: { id: experiment.id, name: experiment.name, variants: ['control', 'concise'] },
    storedEvents: async (ids) => ids.flatMap((id) => fake.events.get(id) ?? []),
    publishNewExperiment: async () => {
      const added = twoArms({ id: 'e2-id', name: `added-${fake.config.config_version + 1}` });
      fake.setConfig(configOf(fake.config.config_version + 1, ...fake.config.experiments, added));
      return added.name;
    },
  };
  return { target, fake };
}
