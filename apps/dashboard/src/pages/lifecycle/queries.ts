import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Experiment, ok } from '../../api/client.ts';
import { experimentKeys } from '../experiments/queries.ts';
import { type Action, type StopChoice, stopBody } from './lifecycle.ts';

function transition(id: string, action: Action, choice?: StopChoice): Promise<Experiment> {
  const params = { path: { id } };
  switch (action) {
    case 'start':
      return ok(api.POST('/v1/experiments/{id}/start', { params }));
    case 'archive':
      return ok(api.POST('/v1/experiments/{id}/archive', { params }));
    case 'unarchive':
      return ok(api.POST('/v1/experiments/{id}/unarchive', { params }));
    case 'stop':
      if (choice === undefined) throw new Error('stop needs a conclusion');
      return ok(api.POST('/v1/experiments/{id}/stop', { params, body: stopBody(choice) }));
  }
}

/**
 * One transition of the experiment. The answer is the experiment as it now is, so the page
 * shows it at once; the list (whose filters and badges it changes) and the versions are asked
 * again.
 */
export function useTransition(id: string, action: Action) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (choice?: StopChoice) => transition(id, action, choice),
    onSuccess: async (experiment) => {
      queryClient.setQueryData(experimentKeys.one(id), experiment);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: experimentKeys.list }),
        queryClient.invalidateQueries({ queryKey: experimentKeys.versions(id) }),
      ]);
    },
  });
}
