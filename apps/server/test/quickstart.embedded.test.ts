import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, rows } from '../src/db/connect.ts';
import {
  cleanUpPage,
  type PageOnServer,
  runPageOnFreshServer,
} from './support/page-on-fresh-server.ts';
import { type RunningServer, runCli } from './support/process.ts';
import {
  blocks,
  DEFAULT_ADDRESS,
  fileNameOf,
  javaVersion,
  PAGE_PACKAGES,
  type Packages,
  type PageRun,
  ROOT,
} from './support/runnable-page.ts';

/**
 * docs/quickstart.md cannot rot: every block of it runs, in order, against a fresh embedded
 * server (`support/runnable-page.ts`: `sh` blocks in one bash session, whose
 * `curl --fail-with-body` stops the run at the first refused request; Python and Java programs
 * saved under the names their first lines give; the clients as `npm run pack` builds them).
 */
const PAGE = join(ROOT, 'docs', 'quickstart.md');
/** The three clients' users: each prints and sends the same ten. */
const CLIENT_USERS = ['ts-user', 'py-user', 'java-user'];
/** The prompt of each variant, as the page's experiment defines it. */
const PROMPTS: Record<string, string> = {
  control: 'You are a helpful shopping assistant.',
  concise: 'Answer in two sentences, then give the next step.',
};

let page: PageOnServer;
let env: Record<string, string>;
let dataDir: string;
let server: RunningServer;
let packed: Packages;
let run: PageRun;

beforeAll(async () => {
  page = await runPageOnFreshServer(PAGE, 'quickstart');
  ({ env, dataDir, server, packed, run } = page);
}, 600_000);

afterAll(() => cleanUpPage(page));

describe('docs/quickstart.md', () => {
  it('runs every block: commands (sh), programs (python, java), and only samples besides', () => {
    const page = blocks(readFileSync(PAGE, 'utf8'));
    // console: `npm start`'s banner; json: an answer as the page shows it. Any other language
    // would be a block this test does not run.
    expect(new Set(page.map((b) => b.lang))).toEqual(
      new Set(['console', 'sh', 'json', 'python', 'java']),
    );
    expect(page.filter((b) => b.lang === 'console' || b.lang === 'json')).toHaveLength(2);
    expect(page.filter((b) => b.lang === 'python' || b.lang === 'java').map(fileNameOf)).toEqual([
      'quickstart_client.py',
      'Quickstart.java',
    ]);
    const script = page.map((b) => b.code).join('\n');
    expect(script).toContain(DEFAULT_ADDRESS);
    expect(script).toContain(PAGE_PACKAGES);
  });

  it('names the jar and the Maven coordinates the Java build makes', () => {
    const version = javaVersion();
    const jar = `arbiter-client-${version}.jar`;
    expect(readdirSync(packed.dir)).toContain(jar);
    expect(readFileSync(PAGE, 'utf8')).toContain(`${PAGE_PACKAGES}${jar}`);
    const readme = readFileSync(join(ROOT, 'clients', 'java', 'README.md'), 'utf8');
    const versions = [
      ...readme.matchAll(/<artifactId>arbiter-client<\/artifactId>\s*<version>([^<]+)</g),
      ...readme.matchAll(/dev\.arbiter:arbiter-client:([^"\s)`]+)/g),
    ].map((m) => m[1]);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    for (const v of versions) expect(v).toBe(version);
  });

  it('has the steps a newcomer needs, each as a runnable block', () => {
    const blocks = readFileSync(PAGE, 'utf8');
    for (const step of [
      'npx arbiter token',
      'POST "$ARBITER/v1/experiments"',
      '/v1/keys',
      '/v1/config',
      '/v1/assign',
      "from '@arbiter/client'",
      'from arbiter import Arbiter',
      'quickstart-venv/bin/python quickstart_client.py',
      'public static void main(String[] args)',
      'Quickstart.java',
      'ARBITER_API_KEY=$PUBLISHABLE ARBITER_BASE_URL=$ARBITER',
      '/v1/events"',
      '/v1/events/import',
      '/test-event',
      '/live',
      'npx arbiter pipeline run',
      '/results',
      '/analyze',
    ])
      expect(blocks).toContain(step);
  });

  it('runs from start to end against a fresh server', () => {
    expect(run.stderr.split('\n').filter((l) => l.includes('curl:'))).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('gives the answers the page promises', () => {
    expect(run.stdout).toContain('"events":2,"errors":[{"line":4,');
    expect(run.stdout).toContain('"type":"/problems/results-collecting"');
    expect(run.stdout).toContain('"setting":"ARBITER_MIN_EVENTS_PER_ARM"');
    expect(run.stdout).toMatch(/"preliminary":true/);
    expect(run.stdout).toContain('"status":"collecting"');
    expect(run.stdout).toMatch(/ \d+ collecting: .*checkout-prompt/);
  });

  it('has each client (TypeScript, Python, Java) print its ten users, each with a variant and its prompt', () => {
    for (const prefix of CLIENT_USERS) {
      for (let i = 0; i < 10; i++) {
        const line = printed(`${prefix}-${i}`);
        expect(PROMPTS[line.variant], `${prefix}-${i}: ${line.variant}`).toBe(line.prompt);
      }
    }
  });

  it('leaves the events it sent in the experiment: thirty client users, the HTTP, import and test events', async () => {
    const token = runCli(
      ['token', '--email', 'you@example.com', '--org', 'my-org', '--role', 'admin'],
      env,
    ).stdout;
    const expected = 3 * 10 + 3;
    let exposures = 0;
    for (let attempt = 0; attempt < 100 && exposures < expected; attempt++) {
      const res = await fetch(`${server.url}/v1/experiments/checkout-prompt/live`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const live = (await res.json()) as { arms: Record<string, { exposures: number }> };
      exposures = Object.values(live.arms).reduce((sum, arm) => sum + arm.exposures, 0);
      if (exposures < expected) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(exposures).toBe(expected);
  });

  it('stores what each client sent: per user its exposure in the printed variant, its model call and, for every third, a checkout', async () => {
    // The server stopped (its shutdown folds what is queued), its embedded database is read here.
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const database = await openDatabase({ kind: 'pglite', dataDir });
    let stored: {
      user_id: string;
      type: string;
      variant: string | null;
      latency_ms: number | null;
      business_metric: string | null;
    }[];
    try {
      stored = await rows(
        database.db,
        sql`select user_id, type, variant, latency_ms, business_metric from events
            where user_id ~ '^(ts|py|java)-user-[0-9]$'`,
      );
    } finally {
      await database.close();
    }
    for (const prefix of CLIENT_USERS) {
      for (let i = 0; i < 10; i++) {
        const user = `${prefix}-${i}`;
        const mine = stored.filter((e) => e.user_id === user);
        const { variant } = printed(user);
        expect(
          mine.filter((e) => e.type === 'exposure').map((e) => e.variant),
          `${user}'s exposures`,
        ).toEqual([variant]);
        expect(
          mine.filter((e) => e.type === 'model_call').map((e) => e.latency_ms),
          `${user}'s model calls`,
        ).toEqual([700 + 10 * i]);
        expect(
          mine.filter((e) => e.type === 'business_event').map((e) => e.business_metric),
          `${user}'s business events`,
        ).toEqual(i % 3 === 0 ? ['checkout'] : []);
      }
    }
  });
});

/**
 * What a client printed for one user: `<user> <variant> <prompt>` (TypeScript quotes the prompt
 * as JSON). A line may follow a curl answer, which ends without a newline.
 */
function printed(user: string): { variant: string; prompt: string } {
  const lines = [...run.stdout.matchAll(new RegExp(`(?<![\\w-])${user} (\\S+) (.*)$`, 'gm'))];
  expect(lines, `one line for ${user}`).toHaveLength(1);
  const [, variant, prompt] = lines[0] as RegExpMatchArray;
  return {
    variant: variant as string,
    prompt: user.startsWith('ts-') ? (JSON.parse(prompt as string) as string) : (prompt as string),
  };
}
