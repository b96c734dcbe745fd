import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';

const root = inject('packageRoot');
const dist = (file: string) => join(root, 'dist', file);
const read = (file: string) => readFileSync(dist(file), 'utf8');
const typescriptBin = join(__dirname, '../../../node_modules/.bin/tsc');
const typesRoot = join(__dirname, '../../../node_modules/@types');

/** Runs node inside the built package, where `@arbiter/client` resolves through its own exports map. */
function node(args: string[], script: string): string {
  return execFileSync(process.execPath, [...args, '-e', script], { cwd: root, encoding: 'utf8' });
}

/** Module specifiers a bundle still loads at run time. */
function imports(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/(?:^|\n)\s*import\s[^'"]*?from\s*['"]([^'"]+)['"]/g))
    found.add(m[1] ?? '');
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(m[1] ?? '');
  for (const m of code.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(m[1] ?? '');
  return [...found].sort();
}

describe('package.json', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('has no runtime dependencies', () => {
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.peerDependencies).toBeUndefined();
    expect(pkg.optionalDependencies).toBeUndefined();
  });
  it('maps node, browser, import, require and types', () => {
    const entry = pkg.exports['.'];
    expect(Object.keys(entry)).toEqual(['browser', 'node', 'import', 'require']);
    for (const condition of ['browser', 'node']) {
      expect(Object.keys(entry[condition])).toEqual(['import', 'require']);
      for (const format of ['import', 'require']) {
        expect(Object.keys(entry[condition][format])).toEqual(['types', 'default']);
      }
    }
  });
});

describe('module resolution of the built package', () => {
  it('Node ESM and CommonJS get the Node build', () => {
    expect(
      node(['--input-type=module'], "console.log(import.meta.resolve('@arbiter/client'))"),
    ).toBe(`${pathToFileURL(dist('index.js')).href}\n`);
    expect(node([], "console.log(require.resolve('@arbiter/client'))")).toBe(
      `${dist('index.cjs')}\n`,
    );
  });

  it('the browser condition gets the browser build', () => {
    expect(
      node(
        ['--conditions=browser', '--input-type=module'],
        "console.log(import.meta.resolve('@arbiter/client'))",
      ),
    ).toBe(`${pathToFileURL(dist('browser.js')).href}\n`);
  });

  it('exports names only, and importing starts nothing', () => {
    const out = node(
      ['--input-type=module'],
      // The module loader's own file reads (CloseReq, FSReq...) are not ours.
      `const live = () => process.getActiveResourcesInfo().filter((r) => !/Req/.test(r));
       const before = live();
       const mod = await import('@arbiter/client');
       const cjs = (await import('node:module')).createRequire(process.cwd() + '/')('@arbiter/client');
       console.log(JSON.stringify({
         esm: Object.keys(mod), cjs: Object.keys(cjs),
         started: live().filter((r) => !before.includes(r)),
       }));`,
    );
    expect(JSON.parse(out)).toEqual({
      esm: ['Arbiter', 'ArbiterError'],
      cjs: ['Arbiter', 'ArbiterError'],
      started: [],
    });
  });
});

describe('bundles', () => {
  it('the Node builds load only Node built-ins: @arbiter/bucketing is bundled', () => {
    for (const file of ['index.js', 'index.cjs']) {
      const specifiers = imports(read(file));
      expect(specifiers.length).toBeGreaterThan(0);
      for (const s of specifiers) expect(s).toMatch(/^node:/);
    }
  });

  it('the browser builds load nothing and use no Node global', () => {
    for (const file of ['browser.js', 'browser.cjs']) {
      const code = read(file);
      expect(imports(code)).toEqual([]);
      expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|__dirname|node:/);
      expect(code).toContain('murmur3x86_32');
    }
  });

  it('the type declarations are self-contained', () => {
    for (const file of ['index.d.ts', 'index.d.cts', 'browser.d.ts', 'browser.d.cts']) {
      const types = read(file);
      expect(types).toMatch(/export \{[^}]*\bArbiter\b/);
      expect(types).not.toContain('@arbiter/bucketing');
    }
  });

  it('a strict TypeScript consumer compiles against both module formats', () => {
    const use = `import { Arbiter, type NodeArbiterOptions, type PromptResult } from '@arbiter/client';
const options: NodeArbiterOptions = { apiKey: 'k', experiments: ['e'] };
const client = new Arbiter(options);
const v: string | null = client.assign('e', 'u');
const p: PromptResult = client.getPrompt('e', 'u', 'default');
const vars: { t: number } = client.getVariables('e', 'u', { t: 1 });
client.track('business_event', { experiment_id: 'e', user_id: 'u', business_metric: 'm', value: 1 });
void [v, p, vars];
`;
    writeFileSync(join(root, 'consumer.mts'), use);
    writeFileSync(join(root, 'consumer.cts'), use);
    execFileSync(
      typescriptBin,
      [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        typesRoot,
        'consumer.mts',
        'consumer.cts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
  });
});

describe('the built bundles run', () => {
  let fake: FakeArbiter;
  beforeAll(async () => {
    fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
  });
  afterAll(() => fake.close());

  const loaders: [string, () => Promise<{ Arbiter: new (o: object) => unknown }>][] = [
    ['index.js', () => import(pathToFileURL(dist('index.js')).href)],
    ['index.cjs', async () => createRequire(import.meta.url)(dist('index.cjs'))],
    ['browser.js', () => import(pathToFileURL(dist('browser.js')).href)],
  ];
  for (const [file, load] of loaders) {
    it(`${file}: loads the config, assigns and tracks`, async () => {
      const { Arbiter } = await load();
      const client = new Arbiter({
        apiKey: fake.apiKey,
        baseUrl: fake.baseUrl,
        logger: memoryLogger(),
        offlineStore: false,
      }) as {
        ready(): Promise<boolean>;
        assign(e: string, u: string): string | null;
        flush(): Promise<void>;
        close(): Promise<void>;
      };
      const before = fake.events.size;
      expect(await client.ready()).toBe(true);
      expect(['control', 'concise']).toContain(client.assign('checkout-prompt', `${file}-user`));
      await client.close();
      expect(fake.events.size).toBe(before + 1);
    });
  }

  it('a Node process that never calls close() delivers its queue before it exits', async () => {
    const script = `import { Arbiter } from ${JSON.stringify(pathToFileURL(dist('index.js')).href)};
      const a = new Arbiter({ apiKey: ${JSON.stringify(fake.apiKey)}, baseUrl: ${JSON.stringify(fake.baseUrl)} });
      a.track('business_event', { experiment_id: 'checkout-prompt', user_id: 'exit-user', business_metric: 'm', value: 2 });`;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    const stored = [...fake.events.values()].filter((e) => e.user_id === 'exit-user');
    expect(stored).toHaveLength(1);
  });
});
