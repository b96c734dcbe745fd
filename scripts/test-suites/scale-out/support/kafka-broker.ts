import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '@platformatic/kafka';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** `scripts/kafka-cluster.sh` with `args`: its exit code, its output trimmed and its errors. */
export function kafkaCluster(args: string[]) {
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'kafka-cluster.sh'), ...args], {
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

/**
 * One broker in a new temporary folder named from `prefix`, and `topic` made on it with
 * `partitions`: the folder (for `kafkaCluster(['stop', dir])`) and the bootstrap list.
 */
export async function startBroker(
  prefix: string,
  topic: string,
  partitions: number,
): Promise<{ dir: string; brokers: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const started = kafkaCluster(['start', '1', dir]);
  if (started.code !== 0) throw new Error(`kafka-cluster.sh start failed: ${started.stderr}`);
  const brokers = started.stdout.split('\n').at(-1) ?? '';
  const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: brokers.split(',') });
  try {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  } finally {
    await admin.close();
  }
  return { dir, brokers };
}
