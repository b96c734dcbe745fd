import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJudgeJob } from '../../../src/analysis/judge/judge-job.ts';
import { createJudge } from '../../../src/integrations/judge/chat-completions-judge.ts';
import { utcDay } from '../../../src/kernel/utc-day.ts';
import { freshDatabase, freshShards } from '../../support/database.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { ingestProbe } from '../../support/ingest-probe.ts';
import { createJudgeExperiment, modelCall, setPlan } from '../../support/judge-fixtures.ts';
import { type FakeJudgeServer, startFakeJudge } from '../../support/judge-server.ts';
import { type StoppableCluster, startStoppableCluster } from '../../support/stoppable-cluster.ts';

// Readers over two shards while one is down: shard 0 on the shared test server, shard 1 on a
// PostgreSQL server of this test's own, stopped while the app runs. A reader that needs every
// shard answers the shard-unavailable problem (503, Retry-After), never the other shard's
// users alone; the judge leaves the experiment unscored and says why. Back up, all is whole.

let h: Harness;
let own: StoppableCluster;
let running = true;
let fake: FakeJudgeServer;
let org: Awaited<ReturnType<Harness['org']>>;
let exp: string;
const now = new Date();
const day = utcDay(now);
/** Users by the shard that holds them. */
const users: [string[], string[]] = [[], []];

beforeAll(async () => {
  own = await startStoppableCluster();
  fake = await startFakeJudge();
  const [onShared] = await freshShards(1);
  const onOwn = await freshDatabase(own.url);
  const shards = [
    onShared as NonNullable<typeof onShared>,
    { handle: onOwn, address: 'own server' },
  ];
  h = await startHarness(
    {
      ARBITER_JUDGE_BASE_URL: fake.baseUrl,
      ARBITER_JUDGE_API_KEY: 'sk-judge-test',
      ARBITER_JUDGE_MODEL: 'grader-1',
    },
    { shards },
  );
  org = await h.org('shard-down-readers');
  await setPlan(h, org.orgId, 'pro');
  exp = await createJudgeExperiment(h, org.admin, 'judged-while-down');
  for (let i = 0; users[0].length < 3 || users[1].length < 3; i++) {
    const user = `user-${i}`;
    users[h.ctx.shards.positionOf(org.orgId, user) as 0 | 1].push(user);
  }
  const calls = [...users[0], ...users[1]].map((u, i) =>
    modelCall(exp, `call-${i}`, u, 'control', 0.5, now.toISOString()),
  );
  expect((await ingestProbe(h).send(org.secret, calls)).statusCode).toBe(202);
  await h.ctx.worker.foldAll();
}, 120_000);

afterAll(async () => {
  // the harness drops the shard's database on that server: it must be up for that
  if (own !== undefined && !running) own.start();
  await h?.close();
  own?.remove();
  await fake?.close();
});

const exportOfDay = () =>
  h.ingest(org.secret, { method: 'GET', url: `/v1/events/export?experiment=${exp}&day=${day}` });

function expectShardUnavailable(res: Awaited<ReturnType<typeof exportOfDay>>) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json().type).toMatch(/\/problems\/shard-unavailable$/);
  expect(res.json().detail).not.toMatch(/postgres:\/\/|select /i);
}

describe('readers while a shard is down', () => {
  it('the export, the live view and the judge refuse to answer from one shard', async () => {
    const whole = await exportOfDay();
    expect(whole.statusCode).toBe(200);
    expect(whole.body.trimEnd().split('\n')).toHaveLength(users[0].length + users[1].length);

    own.stop();
    running = false;
    expectShardUnavailable(await exportOfDay());
    expectShardUnavailable(
      await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${exp}/live` }),
    );
    const judge = createJudge(h.ctx.config);
    if (judge === null) throw new Error('the judge is configured above');
    const [judged] = await runJudgeJob(h.ctx, judge, { experimentId: exp, now });
    expect(judged).toMatchObject({ experimentId: exp, scored: 0 });
    expect(judged?.firstFailure).toMatch(/shard\(s\) 1 did not answer/);
    expect(fake.requests).toHaveLength(0);

    own.start();
    running = true;
    expect((await exportOfDay()).body).toBe(whole.body);
    const [later] = await runJudgeJob(h.ctx, judge, { experimentId: exp, now });
    expect(later).toMatchObject({ scored: users[0].length + users[1].length, failed: 0 });
  }, 120_000);
});
