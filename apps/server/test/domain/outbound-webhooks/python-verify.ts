import { spawnSync } from 'node:child_process';
import { testPython } from '../../../../../packages/stats/test/support/test-python.ts';
import { type Received, webhookHeaders } from './receiver.ts';

const VERIFY = `
import json, sys
from standardwebhooks.webhooks import Webhook
job = json.load(sys.stdin)
out = []
for secret in job["secrets"]:
    try:
        Webhook(secret).verify(job["body"], job["headers"])
        out.append(True)
    except Exception:
        out.append(False)
print(json.dumps(out))
`;

/**
 * Whether the Python `standardwebhooks` library, unchanged, verifies a delivery with each
 * secret: the receiver a Python team would write.
 */
export function pythonVerifies(delivery: Received, secrets: string[]): boolean[] {
  const python = testPython();
  const input = JSON.stringify({
    secrets,
    body: delivery.body,
    headers: webhookHeaders(delivery.headers),
  });
  const run = spawnSync(python, ['-c', VERIFY], { input, encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0)
    throw new Error(
      `the Python verifier failed: ${python} (${run.error?.message ?? `exit status ${run.status}`}).\n${(run.stderr ?? '').trim()}\nSet ARBITER_PYTHON to a Python with apps/server/test/support/webhooks-requirements.txt installed (bash scripts/python-env.sh).`,
    );
  return JSON.parse(run.stdout) as boolean[];
}
