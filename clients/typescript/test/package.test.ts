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

/** The framework integrations, each a subpath `@arbiter/client/<entry>`. */
const INTEGRATIONS = ['ai-sdk', 'langchain'];
const INTEGRATION_PEERS = ['@langchain/core', 'ai'];

describe('package.json', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('has no runtime dependencies; the frameworks of the integrations are optional peers', () => {
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.optionalDependencies).toBeUndefined();
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(INTEGRATION_PEERS);
    for (const peer of INTEGRATION_PEERS) {
      expect(pkg.peerDependenciesMeta[peer]).toEqual({ optional: true });
    }
  });
  it('maps each integration subpath to its ESM and CommonJS build with types', () => {
    for (const entry of INTEGRATIONS) {
      expect(pkg.exports[`./${entry}`]).toEqual({
        import: { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` },
        require: { types: `./dist/${entry}.d.cts`, default: `./dist/${entry}.cjs` },
      });
    }
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

  it('the integration subpaths resolve to their own builds, ESM and CommonJS', () => {
    for (const entry of INTEGRATIONS) {
      expect(
        node(
          ['--input-type=module'],
          `console.log(import.meta.resolve('@arbiter/client/${entry}'))`,
        ),
      ).toBe(`${pathToFileURL(dist(`${entry}.js`)).href}\n`);
      expect(node([], `console.log(require.resolve('@arbiter/client/${entry}'))`)).toBe(
        `${dist(`${entry}.cjs`)}\n`,
      );
    }
  });

  it('the integration subpaths export their names only, and importing starts nothing', () => {
    const out = node(
      ['--input-type=module'],
      `const live = () => process.getActiveResourcesInfo().filter((r) => !/Req/.test(r));
       const before = live();
       const req = (await import('node:module')).createRequire(process.cwd() + '/');
       const names = {};
       for (const entry of ${JSON.stringify(INTEGRATIONS)}) {
         names[entry] = {
           esm: Object.keys(await import('@arbiter/client/' + entry)),
           cjs: Object.keys(req('@arbiter/client/' + entry)),
         };
       }
       console.log(JSON.stringify({ names, started: live().filter((r) => !before.includes(r)) }));`,
    );
    expect(JSON.parse(out)).toEqual({
      names: {
        'ai-sdk': { esm: ['arbiterMiddleware'], cjs: ['arbiterMiddleware'] },
        langchain: { esm: ['ArbiterCallbackHandler'], cjs: ['ArbiterCallbackHandler'] },
      },
      started: [],
    });
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
      esm: ['Arbiter', 'ArbiterError', 'PreparedAttributes', 'renderPrompt'],
      cjs: ['Arbiter', 'ArbiterError', 'PreparedAttributes', 'renderPrompt'],
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

  it('the integration builds load nothing: no framework, no Node built-in', () => {
    for (const entry of INTEGRATIONS) {
      for (const file of [`${entry}.js`, `${entry}.cjs`]) {
        const code = read(file);
        expect(imports(code)).toEqual([]);
        expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|__dirname|node:/);
      }
      for (const file of [`${entry}.d.ts`, `${entry}.d.cts`]) {
        expect(read(file)).not.toMatch(/from ['"](ai|@langchain\/[\w-]+|@ai-sdk\/[\w-]+)['"]/);
      }
    }
  });

  it('the type declarations are self-contained', () => {
    for (const file of ['index.d.ts', 'index.d.cts', 'browser.d.ts', 'browser.d.cts']) {
      const types = read(file);
      expect(types).toMatch(/export \{[^}]*\bArbiter\b/);
      expect(types).not.toContain('@arbiter/bucketing');
    }
  });

  // A longer guard: two tsc runs over the built package took over a minute at a load of 20.
  it('a strict TypeScript consumer compiles against both module formats', () => {
    const use = `import { Arbiter, type NodeArbiterOptions, PreparedAttributes, type PromptResult } from '@arbiter/client';
import { arbiterMiddleware } from '@arbiter/client/ai-sdk';
import { ArbiterCallbackHandler } from '@arbiter/client/langchain';
const options: NodeArbiterOptions = { apiKey: 'k', experiments: ['e'] };
const client = new Arbiter(options);
const v: string | null = client.assign('e', 'u', new PreparedAttributes({ plan: 'pro' }));
const p: PromptResult = client.getPrompt('e', 'u', 'default');
const vars: { t: number } = client.getVariables('e', 'u', { t: 1 });
client.track('business_event', { experiment_id: 'e', user_id: 'u', business_metric: 'm', value: 1 });
void [v, p, vars];
const middleware = arbiterMiddleware({ client, experiment: 'e', useVariantPrompt: true });
const handler = new ArbiterCallbackHandler({ client, experiment: 'e', user: 'u' });
void [middleware.wrapGenerate, handler.handleLLMEnd];
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
  }, 180_000);
});

interface Middleware {
  wrapGenerate(o: object): Promise<unknown>;
}
interface Handler {
  handleLLMStart(...args: unknown[]): void;
  handleLLMEnd(...args: unknown[]): void;
}

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

  // The client and the integration may come from different module formats: the integration
  // finds the client's hooks under a registered symbol.
  const integrationLoaders: [string, string, () => Promise<Record<string, unknown>>][] = [
    ['ai-sdk.js', 'index.cjs', () => import(pathToFileURL(dist('ai-sdk.js')).href)],
    ['ai-sdk.cjs', 'index.js', async () => createRequire(import.meta.url)(dist('ai-sdk.cjs'))],
    ['langchain.js', 'index.js', () => import(pathToFileURL(dist('langchain.js')).href)],
    [
      'langchain.cjs',
      'index.cjs',
      async () => createRequire(import.meta.url)(dist('langchain.cjs')),
    ],
  ];
  for (const [file, clientFile, load] of integrationLoaders) {
    it(`${file} with the client of ${clientFile}: records a model call`, async () => {
      const clientModule = clientFile.endsWith('.cjs')
        ? createRequire(import.meta.url)(dist(clientFile))
        : await import(pathToFileURL(dist(clientFile)).href);
      const client = new clientModule.Arbiter({
        apiKey: fake.apiKey,
        baseUrl: fake.baseUrl,
        logger: memoryLogger(),
      });
      await client.ready();
      const user = `${file}-user`;
      const integration = await load();
      if (file.startsWith('ai-sdk')) {
        const middleware = (integration.arbiterMiddleware as (o: object) => Middleware)({
          client,
          experiment: 'checkout-prompt',
          user,
        });
        await middleware.wrapGenerate({
          doGenerate: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
          params: { prompt: [] },
          model: { modelId: 'm-1' },
        });
      } else {
        const Handler = integration.ArbiterCallbackHandler as new (o: object) => Handler;
        const handler = new Handler({ client, experiment: 'checkout-prompt', user });
        handler.handleLLMStart({}, ['Hi'], 'run-1', undefined, {}, [], { ls_model_name: 'm-1' });
        handler.handleLLMEnd({ generations: [[{ text: 'ok' }]] }, 'run-1');
      }
      await client.close();
      const call = [...fake.events.values()].find(
        (e) => e.user_id === user && e.type === 'model_call',
      );
      expect(call).toMatchObject({ model: 'm-1', response: 'ok', error: null });
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
