import { closest } from './closest.ts';
import { type CommandSpec, usageOf } from './command-spec.ts';
import { COMMANDS, commandsUsage, PIPELINE_RUN } from './commands.ts';
import { UsageError } from './usage-error.ts';

/** What `arbiter …` asks for: a usage text to print (exit 0), or a command with its arguments. */
export type Invocation =
  | { kind: 'usage'; text: string }
  | { kind: 'run'; spec: CommandSpec; args: string[] };

const isHelp = (word: string | undefined) => word === '--help' || word === '-h';
const TOP_LEVEL = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0] as string)), 'help'];

function unknown(command: string, what: string, typed: string, known: string[]): UsageError {
  const near = closest(typed, known);
  return new UsageError(
    command,
    near === null
      ? `unknown ${what} '${typed}'; the ${what}s are ${known.join(', ')}`
      : `unknown ${what} '${typed}'; did you mean ${near}?`,
  );
}

/** `pipeline` has one subcommand, `run`, and says so when it is missing or misspelled. */
function pipelineSubcommand(args: string[]): Invocation {
  const [sub, ...rest] = args;
  if (isHelp(sub)) return { kind: 'usage', text: usageOf(PIPELINE_RUN) };
  if (sub === undefined)
    throw new UsageError('pipeline', 'needs a subcommand: run (arbiter pipeline run --help)');
  if (sub !== 'run') throw unknown('pipeline', 'subcommand', sub, ['run']);
  return { kind: 'run', spec: PIPELINE_RUN, args: rest };
}

/** `arbiter help [command]`. */
function helpFor(args: string[]): Invocation {
  if (args.length === 0) return { kind: 'usage', text: commandsUsage() };
  const resolved = resolveCommand(args);
  return resolved.kind === 'usage' ? resolved : { kind: 'usage', text: usageOf(resolved.spec) };
}

/**
 * The command named by the first words of `argv`. An unknown command (or an option before any
 * command other than `--help`) is a UsageError that names it and suggests the closest one.
 */
export function resolveCommand(argv: string[]): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined || isHelp(first)) return { kind: 'usage', text: commandsUsage() };
  if (first === 'help') return helpFor(rest);
  if (first === 'pipeline') return pipelineSubcommand(rest);
  if (first.startsWith('-')) {
    const near = closest(first.replace(/^-+/, ''), ['help']);
    throw new UsageError(
      '',
      `unknown option '${first}'; ${near === null ? 'a command comes first' : 'did you mean --help?'} (arbiter --help lists the commands)`,
    );
  }
  const spec = COMMANDS.find((c) => c.name === first);
  if (spec === undefined) throw unknown('', 'command', first, TOP_LEVEL);
  return { kind: 'run', spec, args: rest };
}
