import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup: tests that spawn `arbiter` run the production build, so it is brought up
 * to date with the sources first (a no-op when nothing changed since the last build).
 */
export default function buildOnce(): void {
  const script = fileURLToPath(new URL('../../../../scripts/build.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`scripts/build.mjs failed with exit ${run.status}`);
}
