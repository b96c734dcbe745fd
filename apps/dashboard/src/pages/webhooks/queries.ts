import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Body, ok, type RequestBody } from '../../api/client.ts';

export type Endpoint = Body<'/v1/webhook-endpoints/{id}', 'get'>;
export type Delivery = Body<'/v1/webhook-endpoints/{id}/deliveries', 'get'>[number];
export type EndpointInput = RequestBody<'/v1/webhook-endpoints', 'post'>;
export type EndpointPatch = RequestBody<'/v1/webhook-endpoints/{id}', 'patch'>;
export type EventType = NonNullable<EndpointInput['event_types']>[number];

export const webhookKeys = {
  list: ['webhook-endpoints'] as const,
  deliveries: (id: string) => ['webhook-endpoints', id, 'deliveries'] as const,
};

/** How many deliveries an endpoint's card shows: the newest ones. */
export const DELIVERIES_SHOWN = 20;

export const useEndpoints = (enabled: boolean) =>
  useQuery({
    queryKey: webhookKeys.list,
    queryFn: () => ok(api.GET('/v1/webhook-endpoints')),
    enabled,
  });

/**
 * The endpoint's newest deliveries. Asked again every few seconds while one is pending, so an
 * attempt made by the server's worker shows without a reload.
 */
export const useDeliveries = (id: string) =>
  useQuery({
    queryKey: webhookKeys.deliveries(id),
    queryFn: () =>
      ok(
        api.GET('/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id }, query: { limit: DELIVERIES_SHOWN } },
        }),
      ),
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 3_000 : false),
  });

function useRefresh(id?: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: webhookKeys.list, exact: true }),
      id === undefined
        ? null
        : queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(id) }),
    ]);
}

export function useCreateEndpoint() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: EndpointInput) => ok(api.POST('/v1/webhook-endpoints', { body })),
    onSuccess: refresh,
  });
}

export function useUpdateEndpoint(id: string) {
  const refresh = useRefresh(id);
  return useMutation({
    mutationFn: (body: EndpointPatch) =>
      ok(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
}

export function useDeleteEndpoint(id: string) {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: () => ok(api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
}

export function useRotateSecret(id: string) {
  return useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } } })),
  });
}

export function useSendTest(id: string) {
  const refresh = useRefresh(id);
  return useMutation({
    mutationFn: () => ok(api.POST('/v1/webhook-endpoints/{id}/test', { params: { path: { id } } })),
    onSuccess: refresh,
  });
}

export function useRetryDelivery(id: string) {
  const refresh = useRefresh(id);
  return useMutation({
    mutationFn: (delivery_id: string) =>
      ok(
        api.POST('/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry', {
          params: { path: { id, delivery_id } },
        }),
      ),
    onSuccess: refresh,
  });
}
