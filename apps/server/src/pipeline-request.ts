import { type NightlySummary, runNightly, SCHEDULED_FOLD_WAIT_MS } from './analysis/nightly.ts';
import type { Config } from './config.ts';
import { CONTROL_HEADER, readControlFile } from './control-file.ts';
import { createContext } from './create-context.ts';
import { startTracing } from './tracing.ts';

/** The running server refused the run; its answer is in the message. */
export class PipelineRequestError extends Error {}

/**
 * Runs the pipeline for one UTC day from outside the server: on the embedded database it asks
 * the running server (PGlite admits one process), otherwise it opens the database itself (and
 * exports the run's traces itself when an OTLP endpoint is set).
 */
export async function requestPipelineRun(config: Config, day: string): Promise<NightlySummary> {
  const running = config.databaseUrl === null ? readControlFile(config.dataDir) : null;
  if (running) {
    let res: Response;
    try {
      res = await fetch(`${running.url}/v1/admin/pipeline/run`, {
        method: 'POST',
        headers: { [CONTROL_HEADER]: running.token, 'content-type': 'application/json' },
        body: JSON.stringify({ day }),
      });
    } catch (error) {
      const cause = ((error as { cause?: Error }).cause ?? (error as Error)).message;
      throw new Error(
        `the server running on this data dir (process ${running.pid}, ${running.url}) did not answer: ${cause}`,
      );
    }
    const body = await res.text();
    if (!res.ok)
      throw new PipelineRequestError(`the running server answered ${res.status}: ${body}`);
    return JSON.parse(body) as NightlySummary;
  }
  const ctx = await createContext(config);
  const tracing = await startTracing(config, ctx.log);
  try {
    return await runNightly(ctx, day, SCHEDULED_FOLD_WAIT_MS);
  } finally {
    await ctx.close();
    await tracing?.shutdown();
  }
}
