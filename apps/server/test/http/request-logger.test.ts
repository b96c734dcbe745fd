import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/http/request-logger.ts';

/** A pino logger at `level` writing JSON lines into an array. */
function capturedLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe('the lazy per-request logger', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  async function appAt(level: string) {
    const { log, lines } = capturedLogger(level);
    const app = Fastify({
      loggerInstance: log,
      childLoggerFactory: lazyRequestLogger,
      genReqId: () => 'req-7',
    });
    app.get('/warn', async (request) => {
      request.log.info('not written at warn');
      request.log.warn({ detail: 1 }, 'written');
      return { ok: true };
    });
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    close = () => app.close();
    await app.ready();
    return { app, lines };
  }

  it('writes warn and error lines with the request id, and nothing below the level', async () => {
    const { app, lines } = await appAt('warn');
    expect((await app.inject({ url: '/warn' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/boom' })).statusCode).toBe(500);
    expect(lines.map((l) => [l.level, l.msg, l.reqId])).toEqual([
      [40, 'written', 'req-7'],
      [50, 'boom', 'req-7'],
    ]);
    expect(lines[0]?.detail).toBe(1);
  });

  it('at info writes what the eager child wrote: the request and response lines too', async () => {
    const { app, lines } = await appAt('info');
    await app.inject({ url: '/warn' });
    expect(lines.map((l) => l.msg)).toEqual([
      'incoming request',
      'not written at warn',
      'written',
      'request completed',
    ]);
    expect(new Set(lines.map((l) => l.reqId))).toEqual(new Set(['req-7']));
  });

  it('answers level questions like its parent, and makes real children', () => {
    const { log, lines } = capturedLogger('warn');
    const lazy = lazyRequestLogger(log, { reqId: 'r1' }, {});
    expect(lazy.level).toBe('warn');
    lazy.child({ part: 'x' }).error('from a grandchild');
    expect(lines[0]).toMatchObject({ reqId: 'r1', part: 'x', msg: 'from a grandchild' });
    const own = lazyRequestLogger(log, { reqId: 'r2' }, { level: 'error' });
    expect(own.level).toBe('error');
  });
});
