import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';

export const BACKUP_MEDIA_TYPE = 'application/gzip';

/**
 * The embedded database's backup, for `arbiter backup` on the server's host. Only the control
 * token is admitted, not a platform owner's session: the file is every org's data, and who
 * holds the token can read the data dir anyway, whereas a session can be used from anywhere.
 */
export function register(app: App, ctx: Pick<Context, 'dumpDatabase'>): void {
  app.post(
    '/v1/admin/backup',
    {
      config: { readOnly: true },
      schema: {
        tags: ['admin'],
        summary:
          'A consistent backup of the embedded database (PGlite’s data dir as a gzipped tarball); control token only',
        produces: [BACKUP_MEDIA_TYPE],
        response: {
          200: {
            description:
              'Every transaction committed before the request, as the tarball `arbiter restore` loads',
            content: { [BACKUP_MEDIA_TYPE]: { schema: Type.String({ format: 'binary' }) } },
          },
          ...problemResponses(403, 409),
        },
      },
    },
    async (request, reply) => {
      if (request.platformOwnerEmail !== null)
        throw new ProblemError(
          'insufficient-role',
          'A backup is taken only with the control token of the server’s data dir: run `arbiter backup` on its host',
        );
      if (ctx.dumpDatabase === null)
        throw new ProblemError(
          'embedded-database-only',
          'This server runs on a PostgreSQL server: back it up with pg_dump or a base backup (docs/operations.md#backups)',
        );
      const started = performance.now();
      const copy = await ctx.dumpDatabase();
      request.log.info(
        { files: copy.files, bytes: copy.bytes, copy_ms: Math.round(performance.now() - started) },
        'embedded database copied for a backup; sending it as a gzipped tarball',
      );
      reply
        .type(BACKUP_MEDIA_TYPE)
        .header('content-disposition', 'attachment; filename="arbiter-backup.tar.gz"');
      // a stream of bytes, which the typed reply (the schema's binary string) does not name
      return reply.send(copy.gzipped() as unknown as string);
    },
  );
}
