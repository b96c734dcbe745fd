/** One option of a command, as its help lists it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** What the value looks like in the usage, e.g. `YYYY-MM-DD` (string options). */
  value?: string;
  description: string;
}

/** What a command takes and how its `--help` reads. */
export interface CommandSpec {
  /** As typed after `arbiter`, e.g. `pipeline run`. */
  name: string;
  /** The usage line's arguments, e.g. `--email E --org O [options]`. */
  synopsis: string;
  /** One line for `arbiter --help`. */
  summary: string;
  /** What `arbiter <command> --help` says after the usage line. */
  description: string;
  options: Record<string, OptionSpec>;
}

/** The help option every command answers. */
export const HELP_OPTION = '-h, --help';

/** `arbiter <command> --help`: the usage line, what it does, its options. */
export function usageOf(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, o]) => [
    `--${name}${o.value === undefined ? '' : ` ${o.value}`}`,
    o.description,
  ]);
  rows.push([HELP_OPTION, 'show this help and exit']);
  const width = Math.max(...rows.map(([left]) => (left as string).length)) + 3;
  const lines = rows.map(([left, right]) => `  ${(left as string).padEnd(width)}${right}`);
  return `Usage: ${`arbiter ${spec.name} ${spec.synopsis}`.trim()}\n\n${spec.description}\n\nOptions:\n${lines.join('\n')}\n`;
}
