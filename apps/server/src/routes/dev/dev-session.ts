import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { mintDevToken } from '../../domain/identity/mint-dev-token.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';

/**
 * The dashboard's development sign-in: the same token `arbiter token --email E --org O --role R`
 * prints. Registered only in development mode (no JWKS configured, which config.ts already
 * refuses off a loopback host); with an identity provider the route does not exist (404).
 */
export function register(app: App, ctx: Pick<Context, 'config'>): void {
  app.post(
    '/v1/dev/session',
    {
      schema: {
        tags: ['account'],
        summary:
          'Development only: a session token for an email, org and role (absent when an identity provider is configured)',
        security: [],
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 320 }),
            org: Type.String({ minLength: 1, maxLength: 128 }),
            role: Type.Enum(['member', 'admin', 'owner']),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ token: Type.String() }),
          ...problemResponses(400),
        },
      },
    },
    async (request) => {
      const { email, org, role, name } = request.body;
      const token = await mintDevToken({
        dataDir: ctx.config.dataDir,
        issuer: ctx.config.sessionIssuer,
        email,
        org,
        role,
        ...(name === undefined ? {} : { name }),
      });
      return { token };
    },
  );
}
