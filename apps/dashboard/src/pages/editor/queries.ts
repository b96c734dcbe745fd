import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';

export const savedGroupKeys = { list: ['saved-groups'] as const };

/** The org's saved groups, by key: what `$inGroup` and `$notInGroup` name. */
export const useSavedGroups = () =>
  useQuery({ queryKey: savedGroupKeys.list, queryFn: () => ok(api.GET('/v1/saved-groups')) });
