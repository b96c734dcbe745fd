import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../api/client.ts';

/** The signed-in user's org, id and role; one cached answer for every page that asks. */
export const useWhoami = () =>
  useQuery({ queryKey: ['whoami'], queryFn: () => ok(api.GET('/v1/whoami')) });
