import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * One of `scripts/` (the ones the test command starts its servers with) run with `args`: the
 * last line it printed (an address, a URL), or an error with what it wrote to stderr.
 */
export function runScript(name: string, args: string[], env: Record<string, string> = {}): string {
  const result = spawnSync('bash', [join(ROOT, 'scripts', name), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`${name} ${args[0] ?? ''}: ${result.stderr}`);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}
