import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { experimentKeys } from '../experiments/queries.ts';
import type { Ramp } from './ramp.ts';

export const rampKey = (id: string) => ['experiment', id, 'rollout'] as const;

/** The ramp, asked again every 30 s: the server advances it and the guard evaluates on its own. */
export const useRamp = (id: string) =>
  useQuery({
    queryKey: rampKey(id),
    queryFn: () => ok(api.GET('/v1/experiments/{id}/rollout', { params: { path: { id } } })),
    refetchInterval: 30_000,
  });

export type RampMove =
  | { kind: 'pause'; reason?: string }
  | { kind: 'resume' }
  | { kind: 'jump'; step: number };

function move(id: string, m: RampMove): Promise<Ramp> {
  const params = { path: { id } };
  switch (m.kind) {
    case 'pause':
      return ok(
        api.POST('/v1/experiments/{id}/rollout/pause', {
          params,
          body: m.reason ? { reason: m.reason } : {},
        }),
      );
    case 'resume':
      return ok(api.POST('/v1/experiments/{id}/rollout/resume', { params, body: {} }));
    case 'jump':
      return ok(api.POST('/v1/experiments/{id}/rollout/jump', { params, body: { step: m.step } }));
  }
}

/**
 * A person's move on the ramp. The answer is the ramp as it now is; a jump makes a new
 * experiment version (its coverage), so the experiment and its versions are asked again.
 */
export function useRampMove(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (m: RampMove) => move(id, m),
    onSuccess: async (ramp) => {
      queryClient.setQueryData(rampKey(id), ramp);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: experimentKeys.one(id), exact: true }),
        queryClient.invalidateQueries({ queryKey: experimentKeys.versions(id) }),
      ]);
    },
  });
}
