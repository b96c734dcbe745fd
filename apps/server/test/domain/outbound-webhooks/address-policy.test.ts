import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  guardedLookup,
  isPublicAddress,
  type Resolver,
} from '../../../src/domain/outbound-webhooks/address-policy.ts';
import { postEvent } from '../../../src/domain/outbound-webhooks/post-event.ts';
import { checkEndpointUrl } from '../../../src/domain/outbound-webhooks/url-policy.ts';
import { startReceiver } from './receiver.ts';

/**
 * Where outbound webhooks may go: public addresses only, judged on what a name resolves to at
 * the moment of sending (a name that later resolves inside the network is refused then).
 */
const resolvingTo =
  (...addresses: string[]): Resolver =>
  (_host, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('the address policy', () => {
  it.each([
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.100.100.200', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fd00:ec2::254', false],
    ['fe80::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['not-an-address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses a name when any address it resolves to is not public', async () => {
    const lookup = guardedLookup(resolvingTo('8.8.8.8', '10.1.2.3'));
    const err = await new Promise<NodeJS.ErrnoException | null>((done) =>
      lookup('mixed.example', {}, (e) => done(e)),
    );
    expect(err?.code).toBe('EADDRNOTPUBLIC');
    expect(err?.message).toContain('10.1.2.3');
  });

  it('passes a name that resolves to public addresses only, in either lookup form', async () => {
    const lookup = guardedLookup(resolvingTo('8.8.8.8', '2606:4700::1111'));
    const one = await new Promise<[string | LookupAddress[], number | undefined]>((done) =>
      lookup('public.example', {}, (_e, address, family) => done([address, family])),
    );
    expect(one).toEqual(['8.8.8.8', 4]);
    const all = await new Promise<string | LookupAddress[]>((done) =>
      lookup('public.example', { all: true }, (_e, address) => done(address)),
    );
    expect(all).toHaveLength(2);
  });

  it('refuses metadata and private IP literals when the URL is saved', () => {
    for (const url of [
      'https://169.254.169.254/latest',
      'https://10.0.0.1/',
      'https://[fd00:ec2::254]/',
    ])
      expect(() => checkEndpointUrl(url, false), url).toThrow(/not a public address/);
    expect(checkEndpointUrl('https://hooks.example.com/a', false)).toBe(
      'https://hooks.example.com/a',
    );
    expect(checkEndpointUrl('http://10.0.0.1/a', true)).toBe('http://10.0.0.1/a');
  });
});

describe('sending an event', () => {
  it('never connects when the name resolves inside the network', async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    // A name that now resolves to the receiver's own loopback address (DNS rebinding).
    const outcome = await postEvent(`http://rebound.example:${port}/hook`, {}, '{}', {
      allowPrivate: false,
      resolve: resolvingTo('127.0.0.1'),
    });
    expect(outcome.status).toBeNull();
    expect(outcome.error).toMatch(/127\.0\.0\.1, which is not a public address/);
    expect(receiver.received).toHaveLength(0);
    await receiver.close();
  });

  it('reaches a loopback receiver where private addresses are allowed', async () => {
    const receiver = await startReceiver([204]);
    const outcome = await postEvent(receiver.url, { 'webhook-id': 'msg_1' }, '{"a":1}', {
      allowPrivate: true,
    });
    expect(outcome).toEqual({ status: 204, error: null, body: '' });
    expect(receiver.received[0]).toMatchObject({ body: '{"a":1}' });
    expect(receiver.received[0]!.headers['webhook-id']).toBe('msg_1');
    await receiver.close();
  });

  it('follows no redirect: a 302 to another receiver is the answer, not a second request', async () => {
    const inside = await startReceiver();
    const { createServer } = await import('node:http');
    const redirecting = createServer((_req, res) => {
      res.writeHead(302, { location: inside.url }).end();
    });
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    const port = (redirecting.address() as { port: number }).port;
    const outcome = await postEvent(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true });
    expect(outcome.status).toBe(302);
    expect(inside.received).toHaveLength(0);
    await new Promise((done) => redirecting.close(done));
    await inside.close();
  });

  it('refuses a private IP literal without a lookup', async () => {
    const outcome = await postEvent('https://10.0.0.1/hook', {}, '{}', { allowPrivate: false });
    expect(outcome).toEqual({ status: null, error: '10.0.0.1 is not a public address' });
  });
});
