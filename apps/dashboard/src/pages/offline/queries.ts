import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok, type RunItemsSort } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';

export const offlineKeys = {
  runs: (experimentId: string) => ['experiment', experimentId, 'offline-runs'] as const,
  run: (runId: string) => ['offline-run', runId] as const,
  items: (runId: string, view: ItemsView) => ['offline-run', runId, 'items', view] as const,
};

/** What the item viewer asks for: one treatment and scorer, one sort, one page. */
export interface ItemsView {
  treatment: string | undefined;
  scorer: string | undefined;
  sort: RunItemsSort;
  after: string | undefined;
}

/** Items per page of the viewer: each item carries every variant's outputs, so pages stay short. */
export const RUN_ITEMS_PER_PAGE = 10;

export const useOfflineRuns = queryHook(offlineKeys.runs, (experimentId: string) =>
  ok(api.GET('/v1/experiments/{id}/offline-runs', { params: { path: { id: experimentId } } })),
);

export const useOfflineRun = queryHook(offlineKeys.run, (runId: string) =>
  ok(api.GET('/v1/offline-runs/{run_id}', { params: { path: { run_id: runId } } })),
);

export const useRunItems = (runId: string, view: ItemsView) =>
  useQuery({
    queryKey: offlineKeys.items(runId, view),
    queryFn: () =>
      ok(
        api.GET('/v1/offline-runs/{run_id}/items', {
          params: {
            path: { run_id: runId },
            query: {
              sort: view.sort,
              limit: RUN_ITEMS_PER_PAGE,
              ...(view.treatment === undefined ? {} : { treatment: view.treatment }),
              ...(view.scorer === undefined ? {} : { scorer: view.scorer }),
              ...(view.after === undefined ? {} : { starting_after: view.after }),
            },
          },
        }),
      ),
    // The page shown stays while the next one loads, so the pager does not jump.
    placeholderData: keepPreviousData,
  });
