import { buildApp } from '../../src/app.ts';
import type { Context } from '../../src/context.ts';
import { createContext } from '../../src/create-context.ts';
import { openDatabase } from '../../src/db/connect.ts';
import type { App } from '../../src/http/app-types.ts';
import type { Clock } from '../../src/kernel/ports.ts';
import type { Harness } from './harness.ts';
import { keepsRunLog, logDestinationOf } from './run-log.ts';

export interface SecondProcess {
  app: App;
  ctx: Context;
  close(): Promise<void>;
}

/** Another server process on the harness's PostgreSQL database, with its own connections and caches. */
export async function secondProcess(
  h: Harness,
  parts: { clock?: Clock } = {},
): Promise<SecondProcess> {
  const database = await openDatabase({ kind: 'postgres', url: h.databaseUrl as string });
  const ctx = await createContext(h.ctx.config, {
    database,
    ...parts,
    logDestination: logDestinationOf(),
  });
  const app = await buildApp(ctx, { logger: keepsRunLog() });
  await app.ready();
  return {
    app,
    ctx,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}
