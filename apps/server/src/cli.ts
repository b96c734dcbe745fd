import { planCapacity } from './cli/capacity-plan.ts';
import { formatPlan, targetOf } from './cli/capacity-report.ts';
import { usageOf } from './cli/command-spec.ts';
import { parseCommandLine } from './cli/parse-command-line.ts';
import { resolveCommand } from './cli/resolve-command.ts';
import { runCommand } from './cli/run-command.ts';
import { UsageError } from './cli/usage-error.ts';
import { describeFailure } from './cli-failure.ts';
import { ConfigError, loadConfig } from './config.ts';

/**
 * How a failure ends the process: a usage mistake (a bad command, option or value) and a bad
 * setting exit 2, anything that failed while running exits 1; each is one line on stderr.
 */
function reported(command: string, error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`arbiter: invalid setting ${error.message}\n`);
    return 2;
  }
  if (error instanceof UsageError) {
    const where = error.command === '' ? '' : `${error.command}: `;
    process.stderr.write(`arbiter: ${where}${error.message}\n`);
    return 2;
  }
  process.stderr.write(`arbiter: ${describeFailure(command, error)}\n`);
  return 1;
}

function printCapacity(values: Record<string, string | boolean | undefined>): number {
  process.stdout.write(formatPlan(planCapacity(targetOf(values))));
  return 0;
}

/**
 * `arbiter <command> [options]`. The command line is read in full before anything happens: a
 * `--help` or `-h` prints the usage and exits 0 having touched nothing (no setting read, no
 * data dir, no listener), and a mistake is refused before the settings are loaded.
 */
export async function main(argv: string[]): Promise<number> {
  let command = 'arbiter';
  try {
    const invocation = resolveCommand(argv);
    if (invocation.kind === 'usage') {
      process.stdout.write(invocation.text);
      return 0;
    }
    command = invocation.spec.name;
    const parsed = parseCommandLine(invocation.spec, invocation.args);
    if (parsed.help) {
      process.stdout.write(usageOf(invocation.spec));
      return 0;
    }
    // A plan is arithmetic over constants: no setting is read, so none can stop it.
    if (command === 'capacity') return printCapacity(parsed.values);
    return await runCommand(command, loadConfig(process.env), parsed.values, process.env);
  } catch (error) {
    return reported(command, error);
  }
}

void main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exit(code);
});
