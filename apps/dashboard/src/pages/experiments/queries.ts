import { useQuery } from '@tanstack/react-query';
import { api, type Experiment, ok } from '../../api/client.ts';
import { isProblem } from '../../api/problem.ts';
import { queryHook } from '../../api/query-hook.ts';

export const experimentKeys = {
  list: ['experiments'] as const,
  one: (id: string) => ['experiment', id] as const,
  versions: (id: string) => ['experiment', id, 'versions'] as const,
  results: (id: string, run: string | undefined) => ['experiment', id, 'results', run] as const,
  live: (id: string) => ['experiment', id, 'live'] as const,
  traffic: (id: string) => ['experiment', id, 'traffic'] as const,
  collecting: (id: string) => ['experiment', id, 'collecting'] as const,
  summary: ['results-summary'] as const,
};

/**
 * The org's experiments; `status` is the list route's filter (a comma-separated list of states),
 * and without it the server leaves archived experiments out.
 */
export const useExperiments = (status?: string) =>
  useQuery({
    queryKey: [...experimentKeys.list, status ?? ''],
    queryFn: () => ok(api.GET('/v1/experiments', { params: { query: status ? { status } : {} } })),
  });

export const useResultsSummary = queryHook(
  () => experimentKeys.summary,
  () => ok(api.GET('/v1/results/summary')),
);

export const useExperiment = queryHook(experimentKeys.one, (id: string) =>
  ok(api.GET('/v1/experiments/{id}', { params: { path: { id } } })),
);

/**
 * Every retained version, newest first. The list pages (at most 100 a page), and the editor
 * rebuilds retired buckets from the whole history, so the pages are walked to the end.
 */
async function allVersions(id: string): Promise<Experiment[]> {
  const all: Experiment[] = [];
  let after: number | undefined;
  for (;;) {
    const query = after === undefined ? { limit: 100 } : { limit: 100, starting_after: after };
    const answer = api.GET('/v1/experiments/{id}/versions', { params: { path: { id }, query } });
    const page = await ok(answer);
    all.push(...page);
    const last = page.at(-1);
    const more = (await answer).response.headers.get('arbiter-has-more') === 'true';
    if (!more || last === undefined) return all;
    after = last.version;
  }
}

export const useVersions = queryHook(experimentKeys.versions, allVersions);

export const useLive = queryHook(experimentKeys.live, (id: string) =>
  ok(api.GET('/v1/experiments/{id}/live', { params: { path: { id } } })),
);

export const useTraffic = queryHook(experimentKeys.traffic, (id: string) =>
  ok(api.GET('/v1/experiments/{id}/traffic', { params: { path: { id } } })),
);

/** One (primary metric, treatment) pair's time-to-decision estimate while the experiment collects. */
export interface CollectingEstimate {
  metric: string;
  treatment: string;
  mde: number;
  users_needed_per_arm: number | null;
  days_to_decision: number | null;
}

/**
 * The estimates of a collecting experiment. They come in the results route's 404 answer (the
 * designed "collecting" problem), so that answer is the data here; any other failure is one.
 */
export const useCollectingEstimates = (id: string) =>
  useQuery({
    queryKey: experimentKeys.collecting(id),
    queryFn: async (): Promise<CollectingEstimate[]> => {
      try {
        await ok(api.GET('/v1/experiments/{id}/results', { params: { path: { id } } }));
        return [];
      } catch (e) {
        if (isProblem(e) && e.status === 404 && Array.isArray(e.body.primary_metrics))
          return e.body.primary_metrics as CollectingEstimate[];
        throw e;
      }
    },
    retry: false,
  });
