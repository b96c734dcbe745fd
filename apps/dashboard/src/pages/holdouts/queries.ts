import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type HoldoutChange, type HoldoutInput, ok } from '../../api/client.ts';
import { isProblem } from '../../api/problem.ts';
import { queryHook } from '../../api/query-hook.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';

export const holdoutKeys = {
  list: ['holdouts'] as const,
  one: (id: string) => ['holdout', id] as const,
  results: (id: string) => ['holdout', id, 'results'] as const,
};

export const useHoldouts = queryHook(
  () => holdoutKeys.list,
  () => ok(api.GET('/v1/holdouts')),
);

export const useHoldout = queryHook(holdoutKeys.one, (id: string) =>
  ok(api.GET('/v1/holdouts/{id}', { params: { path: { id } } })),
);

/** The latest nightly comparison; the route's 404 while collecting is an answer, not retried. */
export const useHoldoutResults = (id: string) =>
  useQuery({
    queryKey: holdoutKeys.results(id),
    queryFn: () => ok(api.GET('/v1/holdouts/{id}/results', { params: { path: { id } } })),
    retry: (n, e) => !isProblem(e) && n < 2,
  });

export const useCreateHoldout = () =>
  useRefreshingMutation(
    (body: HoldoutInput) => ok(api.POST('/v1/holdouts', { body })),
    holdoutKeys.list,
  );

export function useUpdateHoldout(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: HoldoutChange) =>
      ok(api.PUT('/v1/holdouts/{id}', { params: { path: { id } }, body })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(holdoutKeys.one(id), saved);
      await queryClient.invalidateQueries({ queryKey: holdoutKeys.list });
    },
  });
}
