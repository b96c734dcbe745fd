import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPython } from '../../../../../packages/stats/test/support/test-python.ts';
import { buildApp } from '../../../src/app.ts';
import { events } from '../../../src/db/schema.ts';
import type { App } from '../../../src/http/app-types.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type FakeJudgeServer, startFakeJudge } from '../../support/judge-server.ts';
import { storedEvents } from '../../support/stored-events.ts';

/**
 * `testPython()` (ARBITER_PYTHON, else the repository's .venv) with
 * apps/server/test/support/openllmetry-requirements.txt installed runs the script.
 */
const SCRIPT = fileURLToPath(new URL('../../support/openllmetry_chat.py', import.meta.url));

let h: Harness;
let app: App;
let origin: string;
let openai: FakeJudgeServer;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('openllmetry');
  experimentId = await h.experiment(org.admin, { name: 'greeting-prompt' });
  app = await buildApp(h.ctx, { logger: false });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
  openai = await startFakeJudge();
  openai.answer = (request) => ({ content: `Hello ${request.body.messages.length}` });
});
afterAll(async () => {
  await openai.close();
  await app.close();
  await h.close();
});

function runPython(args: string[]): Promise<string> {
  const python = testPython();
  return new Promise((resolve, reject) => {
    const child = spawn(python, [SCRIPT, ...args], {
      env: { ...process.env, TRACELOOP_TRACE_CONTENT: 'true' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else {
        reject(
          new Error(
            `${python} ${SCRIPT} exited with ${code}: ${err.trim()}\nSet ARBITER_PYTHON to a Python with apps/server/test/support/openllmetry-requirements.txt installed (bash scripts/python-env.sh).`,
          ),
        );
      }
    });
  });
}

describe('OpenLLMetry (opentelemetry-instrumentation-openai, Python) exporting to Arbiter', () => {
  it('stores each chat completion as a model_call of the baggage user, with one exposure each', async () => {
    const out = await runPython([
      `${origin}/v1/otlp/v1/traces`,
      org.publishable,
      openai.baseUrl,
      'greeting-prompt',
      'py-ann',
      'py-ben',
    ]);
    expect(out.trim().split('\n')).toEqual(['Hello 2', 'Hello 2']);
    expect(openai.requests).toHaveLength(2);

    const rows = await storedEvents(h, eq(events.orgId, org.orgId));
    const calls = rows.filter((r) => r.type === 'model_call');
    expect(calls.map((c) => c.userId).sort()).toEqual(['py-ann', 'py-ben']);
    for (const call of calls) {
      expect(call).toMatchObject({
        experimentId,
        model: 'gpt-4o-mini',
        inputTokens: 50,
        outputTokens: 8,
        error: null,
        prompt: `system: Answer in one word.\nuser: Greet ${call.userId}`,
        response: 'Hello 2',
      });
      expect(call.eventId).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
      expect(call.latencyMs).toBeGreaterThan(0);
    }
    const exposures = rows.filter((r) => r.type === 'exposure');
    expect(exposures.map((e) => e.userId).sort()).toEqual(['py-ann', 'py-ben']);
  });
});
