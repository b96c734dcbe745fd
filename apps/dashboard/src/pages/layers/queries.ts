import { api, type LayerInput, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';

export const layerKeys = {
  /** Every layer query: the list and each layer's page. */
  all: ['layers'] as const,
  list: ['layers', 'list'] as const,
  one: (idOrName: string) => ['layers', 'one', idOrName] as const,
};

export const useLayers = queryHook(
  () => layerKeys.list,
  () => ok(api.GET('/v1/layers')),
);

export const useLayer = queryHook(layerKeys.one, (idOrName: string) =>
  ok(api.GET('/v1/layers/{id}', { params: { path: { id: idOrName } } })),
);

export const useCreateLayer = () =>
  useRefreshingMutation((body: LayerInput) => ok(api.POST('/v1/layers', { body })), layerKeys.list);
