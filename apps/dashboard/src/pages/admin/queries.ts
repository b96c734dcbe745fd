import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { queryHook } from '../../api/query-hook.ts';

export const adminKeys = {
  all: ['admin'] as const,
  inbox: (cursor: string | undefined) => ['admin', 'inbox', cursor] as const,
  overview: ['admin', 'overview'] as const,
  orgs: ['admin', 'orgs'] as const,
  org: (id: string) => ['admin', 'org', id] as const,
  health: ['admin', 'health'] as const,
};

/** Messages per inbox page: a screenful to read through, then "Older messages". */
export const INBOX_PAGE_SIZE = 20;

export const useInbox = (cursor: string | undefined) =>
  useQuery({
    queryKey: adminKeys.inbox(cursor),
    queryFn: () =>
      ok(
        api.GET('/v1/admin/inbox', {
          params: { query: { limit: INBOX_PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
  });

export const useOverview = queryHook(
  () => adminKeys.overview,
  () => ok(api.GET('/v1/admin/overview')),
);

export const useAdminOrgs = queryHook(
  () => adminKeys.orgs,
  () => ok(api.GET('/v1/admin/orgs')),
);

export const useAdminOrg = queryHook(adminKeys.org, (id: string) =>
  ok(api.GET('/v1/admin/orgs/{id}', { params: { path: { id } } })),
);

export const useHealth = queryHook(
  () => adminKeys.health,
  () => ok(api.GET('/v1/admin/health')),
);
