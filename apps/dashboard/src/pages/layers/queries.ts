import { useQuery } from '@tanstack/react-query';
import { api, type LayerInput, ok } from '../../api/client.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';

export const layerKeys = {
  /** Every layer query: the list and each layer's page. */
  all: ['layers'] as const,
  list: ['layers', 'list'] as const,
  one: (idOrName: string) => ['layers', 'one', idOrName] as const,
};

export const useLayers = () =>
  useQuery({ queryKey: layerKeys.list, queryFn: () => ok(api.GET('/v1/layers')) });

export const useLayer = (idOrName: string) =>
  useQuery({
    queryKey: layerKeys.one(idOrName),
    queryFn: () => ok(api.GET('/v1/layers/{id}', { params: { path: { id: idOrName } } })),
  });

export const useCreateLayer = () =>
  useRefreshingMutation((body: LayerInput) => ok(api.POST('/v1/layers', { body })), layerKeys.list);
