import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Once per run, before any browser test file: Debian's Chromium, and the build the server
 * serves (a no-op when nothing changed). Two files building at once would race on dist/.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '../../../..');
  execFileSync('bash', ['scripts/ensure-chromium.sh'], { cwd: root });
  execFileSync('sh', ['scripts/bootstrap.sh'], { cwd: root, stdio: 'inherit' });
}
