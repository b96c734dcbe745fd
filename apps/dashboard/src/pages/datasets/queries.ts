import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';
import type { UploadFormat } from './upload-format.ts';

export const datasetKeys = {
  list: ['datasets'] as const,
  one: (id: string) => ['dataset', id] as const,
  items: (id: string, after: string | undefined) => ['dataset', id, 'items', after] as const,
};

/** Items per page of a dataset's table. */
export const DATASET_ITEMS_PER_PAGE = 50;

export const useDatasets = queryHook(
  () => datasetKeys.list,
  () => ok(api.GET('/v1/datasets')),
);

export const useDataset = queryHook(datasetKeys.one, (id: string) =>
  ok(api.GET('/v1/datasets/{id}', { params: { path: { id } } })),
);

export const useDatasetItems = (id: string, after: string | undefined) =>
  useQuery({
    queryKey: datasetKeys.items(id, after),
    queryFn: () =>
      ok(
        api.GET('/v1/datasets/{id}/items', {
          params: {
            path: { id },
            query: {
              limit: DATASET_ITEMS_PER_PAGE,
              ...(after === undefined ? {} : { starting_after: after }),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export const useCreateDataset = () =>
  useRefreshingMutation(
    (body: { name: string; description?: string }) => ok(api.POST('/v1/datasets', { body })),
    datasetKeys.list,
  );

/** The file's text as sent, with the Content-Type that names its format to the server. */
export const useUploadItems = (id: string) =>
  useRefreshingMutation(
    ({ text, format }: { text: string; format: UploadFormat }) =>
      ok(
        api.POST('/v1/datasets/{id}/items', {
          params: { path: { id } },
          body: text,
          bodySerializer: (body) => body,
          headers: { 'content-type': format.contentType },
        }),
      ),
    datasetKeys.list,
    datasetKeys.one(id),
  );
