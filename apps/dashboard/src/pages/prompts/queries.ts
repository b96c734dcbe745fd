import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';

export const promptKeys = {
  /** Every prompt query: the list, each prompt's page and its label history. */
  all: ['prompts'] as const,
  list: ['prompts', 'list'] as const,
  one: (name: string) => ['prompts', 'one', name] as const,
  history: (promptId: string) => ['prompts', 'history', promptId] as const,
};

export const usePrompts = queryHook(
  () => promptKeys.list,
  () => ok(api.GET('/v1/prompts')),
);

export const usePrompt = queryHook(promptKeys.one, (name: string) =>
  ok(api.GET('/v1/prompts/{name}', { params: { path: { name } } })),
);

/** One move of a label, from the audit trail: who moved it when, from and to which version. */
export interface LabelMove {
  id: string;
  label: string;
  from: number | null;
  to: number;
  at: string;
  by: string;
  /** The experiment whose stop with `ship` released the version, when one did. */
  experiment: { id: string; name: string } | null;
}

/**
 * The prompt's label moves, newest first: its audit trail (`target_id` = the prompt's id, the
 * route's largest page) read for `prompt.label_moved`, the record the server keeps of each move.
 */
export const useLabelHistory = (promptId: string) =>
  useQuery({
    queryKey: promptKeys.history(promptId),
    queryFn: async (): Promise<LabelMove[]> => {
      const query = { target_id: promptId, limit: 1000 };
      const entries = await ok(api.GET('/v1/audit', { params: { query } }));
      return entries
        .filter((e) => e.action === 'prompt.label_moved')
        .map((e) => {
          const d = e.details as Record<string, unknown>;
          const experiment =
            typeof d.experiment_id === 'string'
              ? { id: d.experiment_id, name: String(d.experiment ?? d.experiment_id) }
              : null;
          return {
            id: e.id,
            label: String(d.label),
            from: typeof d.from === 'number' ? d.from : null,
            to: Number(d.to),
            at: e.created_at,
            by: e.actor ? (e.actor.email ?? e.actor.name ?? e.actor.id) : 'system',
            experiment,
          };
        });
    },
  });

export const useCreatePrompt = () =>
  useRefreshingMutation(
    (body: { name: string; description?: string }) => ok(api.POST('/v1/prompts', { body })),
    promptKeys.list,
  );

/** Points `label` at `version`; the prompt, the list and the label history are read again. */
export const useMoveLabel = (name: string) =>
  useRefreshingMutation(
    ({ label, version }: { label: string; version: number }) =>
      ok(
        api.PUT('/v1/prompts/{name}/labels/{label}', {
          params: { path: { name, label } },
          body: { version },
        }),
      ),
    promptKeys.all,
  );
