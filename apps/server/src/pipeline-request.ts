import { type NightlySummary, runNightly, SCHEDULED_FOLD_WAIT_MS } from './analysis/run/nightly.ts';
import type { Config } from './config.ts';
import { CONTROL_HEADER, readControlFile } from './control-file.ts';
import { createContext } from './create-context.ts';
import { startTracing } from './tracing.ts';

/** The running server refused the run; its answer is in the message. */
export class PipelineRequestError extends Error {}

/** The server's refusal in one line: its problem's detail (or title), never the raw body. */
function refusalOf(status: number, body: string): string {
  let said = '';
  try {
    const problem = JSON.parse(body) as { detail?: unknown; title?: unknown };
    said = String(problem.detail ?? problem.title ?? '');
  } catch {}
  const line = said.split('\n')[0]?.trim() ?? '';
  return `the running server refused the run (${status})${line === '' ? '' : `: ${line}`}`;
}

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
    if (!res.ok) throw new PipelineRequestError(refusalOf(res.status, body));
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
