import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The script that starts a throwaway PostgreSQL cluster (tests that stop a server start their own). */
export const ENSURE_POSTGRES = fileURLToPath(
  new URL('../../../../scripts/ensure-postgres.sh', import.meta.url),
);

/** Runs a command as the cluster's owner: PostgreSQL refuses to run as root. */
export function asClusterOwner(command: string[]): void {
  const root = process.getuid?.() === 0;
  const line = command.map((part) => `'${part}'`).join(' ');
  if (root) execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', line], { stdio: 'ignore' });
  else execFileSync(command[0] as string, command.slice(1), { stdio: 'ignore' });
}
