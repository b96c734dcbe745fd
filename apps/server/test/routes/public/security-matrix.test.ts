import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/harness.ts';
import {
  documentedOperations,
  expectAdmitted,
  type Ids,
  type RouteCase,
  routeKeys,
  startMatrixHarness,
} from '../../support/security-matrix.ts';

const PUBLIC_ROUTES: Array<Omit<RouteCase, 'role'>> = [
  {
    method: 'POST',
    path: '/v1/contact',
    url: () => '/v1/contact',
    payload: () => ({ name: 'Pat', email: 'pat@prospect.test', message: 'Hello', kind: 'sales' }),
  },
  { method: 'GET', path: '/v1/openapi.json', url: () => '/v1/openapi.json' },
];

let h: Harness;
let ids: Ids;

beforeAll(async () => {
  ({ h, ids } = await startMatrixHarness());
});
afterAll(() => h.close());

describe('security matrix of the public routes', () => {
  it('covers every /v1 route the OpenAPI document lists without a credential', async () => {
    const documented = await documentedOperations(
      h,
      (path, op) => path.startsWith('/v1/') && op.security?.length === 0,
    );
    expect(routeKeys(PUBLIC_ROUTES)).toEqual(documented.sort());
  });

  describe.each(PUBLIC_ROUTES)('$method $path', (route) => {
    it('admits a caller without a credential, and ignores one sent anyway', async () => {
      const credentials = [
        {},
        { authorization: 'Bearer not.a.jwt' },
        { 'x-api-key': 'svc_pk_guess' },
      ];
      for (const [i, headers] of credentials.entries()) {
        const res = await h.app.inject({
          method: route.method,
          url: route.url(ids),
          headers,
          remoteAddress: `192.0.2.${i + 1}`,
          ...(route.payload ? { payload: route.payload(ids) as object } : {}),
        });
        expectAdmitted({ ...route, role: 'member' }, res);
      }
    });
  });
});
