import { parseArgs } from 'node:util';
import { closest } from './closest.ts';
import type { CommandSpec } from './command-spec.ts';
import { UsageError } from './usage-error.ts';

export type Values = Record<string, string | boolean | undefined>;
export type ParsedCommandLine = { help: true } | { help: false; values: Values };
type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** `unknown option '--dya'; did you mean --day?`, or the options there are. */
function unknownOption(spec: CommandSpec, rawName: string): UsageError {
  const names = Object.keys(spec.options);
  if (names.length === 0)
    return new UsageError(
      spec.name,
      `unknown option '${rawName}': ${spec.name} takes no options; its settings are ARBITER_* environment variables (README: Settings)`,
    );
  const near = closest(rawName.replace(/^-+/, ''), [...names, 'help']);
  return new UsageError(
    spec.name,
    near === null
      ? `unknown option '${rawName}'; its options are ${names.map((n) => `--${n}`).join(', ')}`
      : `unknown option '${rawName}'; did you mean --${near}?`,
  );
}

/** What is wrong with one token of the command line, or null when nothing is. */
function problemOf(spec: CommandSpec, token: Token): UsageError | null {
  if (token.kind === 'positional')
    return new UsageError(spec.name, `unexpected argument '${token.value}'`);
  if (token.kind !== 'option') return null;
  const option = spec.options[token.name];
  if (option === undefined) return unknownOption(spec, token.rawName);
  const missing = token.value === undefined || (!token.inlineValue && token.value.startsWith('-'));
  if (option.type === 'string' && missing)
    return new UsageError(
      spec.name,
      `${token.rawName} needs a value (${token.rawName} ${option.value})`,
    );
  if (option.type === 'boolean' && token.inlineValue)
    return new UsageError(spec.name, `${token.rawName} takes no value`);
  return null;
}

/**
 * Node's `util.parseArgs`, with the checks it leaves to us: `-h`/`--help` anywhere wins (the
 * command then does nothing but print its usage), and an unknown option, a stray argument, a
 * string option without its value or a flag given one is a UsageError that names it, with the
 * closest option suggested. Values are returned as given; each command checks its own.
 */
export function parseCommandLine(spec: CommandSpec, args: readonly string[]): ParsedCommandLine {
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [name, { type: o.type }]),
  );
  const { values, tokens } = parseArgs({
    args: [...args],
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { help: true };
  for (const token of tokens) {
    const problem = problemOf(spec, token);
    if (problem !== null) throw problem;
  }
  return { help: false, values };
}
