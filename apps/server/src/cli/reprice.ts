import type { Config } from '../config.ts';
import { readControlFile } from '../control-file.ts';
import type { RepriceReport } from '../ingest/reprice.ts';
import type { Values } from './parse-command-line.ts';
import { UsageError } from './usage-error.ts';
import { checkedDay, checkedText } from './values.ts';

const COMMAND = 'reprice';

function dayOption(values: Values, name: 'from' | 'to'): string | null {
  const given = values[name] as string | undefined;
  return given === undefined ? null : checkedDay(COMMAND, given, name);
}

/** The run in one sentence: what changed (or would), and by how much. */
export function explainReprice(report: RepriceReport): string {
  const verb = report.dryRun ? 'would re-price' : 're-priced';
  const sign = report.costDelta < 0 ? '−' : '+';
  const orgs = `${report.orgs} org${report.orgs === 1 ? '' : 's'}`;
  const unpriced =
    report.unpriced === 0 ? '' : `; ${report.unpriced} of them no row prices any more`;
  return `${verb} ${report.repriced} of ${report.examined} model calls priced by the server, in ${orgs} (cost ${sign}$${Math.abs(report.costDelta)})${unpriced}`;
}

/**
 * `arbiter reprice`: opens the database itself, as the pipeline command does when no server
 * owns the embedded one; the embedded database admits one process, so a running server there
 * is a refusal (exit 1) rather than a wait.
 */
export async function reprice(config: Config, values: Values): Promise<number> {
  const org = values.org as string | undefined;
  if (org !== undefined) checkedText(COMMAND, 'org', org, 128);
  const from = dayOption(values, 'from');
  const to = dayOption(values, 'to');
  if (from !== null && to !== null && from > to)
    throw new UsageError(COMMAND, `--from ${from} is after --to ${to}`);
  const running = config.databaseUrl === null ? readControlFile(config.dataDir) : null;
  if (running) {
    process.stderr.write(
      `arbiter: reprice: a server runs on this data dir (process ${running.pid}); the embedded database admits one process, so stop it and run this again\n`,
    );
    return 1;
  }
  const { createContext } = await import('../create-context.ts');
  const { RepriceError, repriceCalls } = await import('../ingest/reprice.ts');
  const ctx = await createContext(config);
  try {
    const report = await repriceCalls(
      ctx.db,
      ctx.shards.all.map((s) => s.db),
      { org: org ?? null, from, to, dryRun: values['dry-run'] === true },
    );
    process.stdout.write(`${explainReprice(report)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RepriceError)) throw error;
    process.stderr.write(`arbiter: reprice: ${error.message}\n`);
    return 1;
  } finally {
    await ctx.close();
  }
}
