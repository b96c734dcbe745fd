import { api, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';

export const savedGroupKeys = { list: ['saved-groups'] as const };

/** The org's saved groups, by key: what `$inGroup` and `$notInGroup` name. */
export const useSavedGroups = queryHook(
  () => savedGroupKeys.list,
  () => ok(api.GET('/v1/saved-groups')),
);
