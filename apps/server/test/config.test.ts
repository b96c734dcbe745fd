import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('has defaults for a bare machine', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/srv/.arbiter',
      databaseUrl: null,
      sessionJwksUrl: null,
      secretKey: null,
    });
  });

  it.each([
    [{ ARBITER_PORT: '70000' }, 'ARBITER_PORT: must be between 0 and 65535, got 70000'],
    [
      { ARBITER_DATABASE_URL: 'mysql://x' },
      'ARBITER_DATABASE_URL: expected a postgres:// or postgresql:// URL',
    ],
    [
      { ARBITER_SESSION_JWKS_URL: '/etc/jwks.json' },
      'ARBITER_SESSION_ISSUER: required with ARBITER_SESSION_JWKS_URL',
    ],
    [{ ARBITER_SECRET_KEY: 'short' }, 'ARBITER_SECRET_KEY: must be at least 32 characters'],
    [
      { ARBITER_LOG_LEVEL: 'loud' },
      'ARBITER_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent',
    ],
    [
      { ARBITER_TRUST_PROXY: 'maybe' },
      'ARBITER_TRUST_PROXY: expected true, false, a number of proxy hops or comma-separated proxy addresses/CIDRs, got "maybe"',
    ],
    [
      { ARBITER_SMTP_URL: 'http://mail.test' },
      'ARBITER_SMTP_URL: expected an smtp:// or smtps:// URL',
    ],
    [
      { ARBITER_CONTACT_PER_IP_PER_HOUR: '0' },
      'ARBITER_CONTACT_PER_IP_PER_HOUR: must be between 1 and 1000000, got 0',
    ],
    [
      { ARBITER_METRICS_PORT: '9464' },
      'ARBITER_METRICS_PORT: needs ARBITER_METRICS=true: there is nothing to serve',
    ],
    [
      { ARBITER_METRICS: 'true', ARBITER_METRICS_PORT: '8080' },
      'ARBITER_METRICS_PORT: must differ from ARBITER_PORT (8080): the metrics get a listener of their own',
    ],
    [
      { ARBITER_METRICS: 'true', ARBITER_METRICS_PORT: '0' },
      'ARBITER_METRICS_PORT: must be between 1 and 65535, got 0',
    ],
  ])('names the variable of a bad value: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('puts the metrics on a port of their own only when ARBITER_METRICS_PORT is set', () => {
    expect(loadConfig({ ARBITER_METRICS: 'true' }).metricsPort).toBeNull();
    expect(loadConfig({ ARBITER_METRICS: 'true', ARBITER_METRICS_PORT: '9464' }).metricsPort).toBe(
      9464,
    );
  });

  it('refuses development sessions off loopback unless a trial asks for them', () => {
    expect(() => loadConfig({ ARBITER_HOST: '0.0.0.0' })).toThrow(
      'ARBITER_SESSION_JWKS_URL: required when ARBITER_HOST (0.0.0.0) is not a loopback address',
    );
    expect(() =>
      loadConfig({ ARBITER_HOST: '0.0.0.0', ARBITER_DEV_SESSIONS_OFF_LOOPBACK: 'false' }),
    ).toThrow(ConfigError);
    const trial = loadConfig({ ARBITER_HOST: '0.0.0.0', ARBITER_DEV_SESSIONS_OFF_LOOPBACK: 'yes' });
    expect(trial).toMatchObject({ host: '0.0.0.0', sessionJwksUrl: null });
    expect(trial.devSessionsOffLoopback).toBe(true);
    // On loopback, or with an identity provider, there is nothing to warn about.
    expect(loadConfig({ ARBITER_DEV_SESSIONS_OFF_LOOPBACK: 'true' }).devSessionsOffLoopback).toBe(
      false,
    );
  });

  it('flags /metrics served off loopback without a token (warned at start)', () => {
    const jwks = {
      ARBITER_SESSION_JWKS_URL: 'https://idp.example/jwks.json',
      ARBITER_SESSION_ISSUER: 'https://idp.example/',
      ARBITER_SESSION_AUDIENCE: 'https://arbiter.example/app',
    };
    const off = { ...jwks, ARBITER_HOST: '0.0.0.0', ARBITER_METRICS: 'true' };
    expect(loadConfig(off).metricsOpenOffLoopback).toBe(true);
    expect(loadConfig({ ...off, ARBITER_METRICS_PORT: '9464' }).metricsOpenOffLoopback).toBe(true);
    const token = 'a-scrape-token-of-32-characters!';
    expect(loadConfig({ ...off, ARBITER_METRICS_TOKEN: token }).metricsOpenOffLoopback).toBe(false);
    expect(loadConfig({ ...off, ARBITER_METRICS: 'false' }).metricsOpenOffLoopback).toBe(false);
    expect(loadConfig({ ARBITER_METRICS: 'true' }).metricsOpenOffLoopback).toBe(false);
    expect(
      loadConfig({ ...jwks, ARBITER_HOST: '::1', ARBITER_METRICS: 'true' }).metricsOpenOffLoopback,
    ).toBe(false);
  });

  it('reads platform owner emails as a lower-cased list', () => {
    expect(
      loadConfig({ ARBITER_PLATFORM_OWNER_EMAILS: ' Boss@Arbiter.dev, ops@arbiter.dev ,' })
        .platformOwnerEmails,
    ).toEqual(['boss@arbiter.dev', 'ops@arbiter.dev']);
  });

  it('enforces plan limits only where billing is configured, unless the setting says otherwise', () => {
    const enforced = (env: Record<string, string>) => loadConfig(env).enforceLimits;
    const billed = { ARBITER_STRIPE_SECRET_KEY: 'sk_test_123' };
    expect(enforced({})).toBe(false);
    expect(enforced(billed)).toBe(true);
    expect(enforced({ ARBITER_ENFORCE_LIMITS: 'true' })).toBe(true);
    expect(enforced({ ...billed, ARBITER_ENFORCE_LIMITS: 'false' })).toBe(false);
    expect(enforced({ ARBITER_ENFORCE_LIMITS: '' })).toBe(false);
  });

  it('reads the trusted proxies as Fastify takes them: none, any, a hop count or addresses', () => {
    const trust = (value?: string) =>
      loadConfig(value === undefined ? {} : { ARBITER_TRUST_PROXY: value }).trustProxy;
    expect(trust()).toBe(false);
    expect(trust('true')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('127.0.0.1, 10.0.0.0/8,::1')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
  });

  it('keeps contact messages for the inbox only until an SMTP URL is set', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: null, contactPerIpPerHour: 5 });
    expect(loadConfig({ ARBITER_SMTP_URL: 'smtps://u:p@mail.test:465' }).smtpUrl).toBe(
      'smtps://u:p@mail.test:465',
    );
  });

  it('keeps model text in the row until ARBITER_BLOB_URL names a bucket', () => {
    expect(loadConfig({}).blob).toBeNull();
    expect(
      loadConfig({
        ARBITER_BLOB_URL: 's3://arbiter-text/model/text/',
        ARBITER_BLOB_ENDPOINT: 'http://127.0.0.1:9000',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_REGION: 'eu-west-1',
      }).blob,
    ).toEqual({
      bucket: 'arbiter-text',
      prefix: 'model/text/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: undefined },
    });
    // No key pair: the AWS SDK's own chain (profile, instance role) finds the credentials.
    expect(loadConfig({ ARBITER_BLOB_URL: 's3://arbiter-text' }).blob).toMatchObject({
      prefix: '',
      endpoint: null,
      region: 'us-east-1',
      credentials: null,
    });
  });

  it('takes the Kafka log and shards together: the fold workers store each event on its shard', () => {
    const both = loadConfig({
      ARBITER_DATABASE_URL: 'postgres://control.test/arbiter',
      ARBITER_SHARD_URLS: 'postgres://a.test/events,postgres://b.test/events',
      ARBITER_KAFKA_BROKERS: '127.0.0.1:9092',
    });
    expect(both.kafka).toEqual({
      brokers: ['127.0.0.1:9092'],
      topic: 'arbiter.events',
      metering: 'acceptance',
    });
    expect(both.shardUrls).toEqual(['postgres://a.test/events', 'postgres://b.test/events']);
    // The control database (claims, meter) must still be a server of its own.
    expect(() =>
      loadConfig({
        ARBITER_SHARD_URLS: 'postgres://a.test/events',
        ARBITER_KAFKA_BROKERS: '127.0.0.1:9092',
      }),
    ).toThrow('ARBITER_SHARD_URLS: needs ARBITER_DATABASE_URL');
  });

  it('meters at the Kafka fold only where the database is the one shard', () => {
    const kafka = { ARBITER_KAFKA_BROKERS: '127.0.0.1:9092', ARBITER_KAFKA_METERING: 'fold' };
    expect(loadConfig(kafka).kafka?.metering).toBe('fold');
    // The fold meters in the transaction that stores: with shards that is not the meter's database.
    expect(() =>
      loadConfig({
        ...kafka,
        ARBITER_DATABASE_URL: 'postgres://control.test/arbiter',
        ARBITER_SHARD_URLS: 'postgres://a.test/events',
      }),
    ).toThrow('ARBITER_KAFKA_METERING: fold needs the database to be the one shard');
    expect(() => loadConfig({ ...kafka, ARBITER_KAFKA_METERING: 'later' })).toThrow(
      'ARBITER_KAFKA_METERING: expected acceptance or fold',
    );
  });

  it.each([
    [{ ARBITER_BLOB_URL: 'https://bucket' }, 'ARBITER_BLOB_URL: expected s3://bucket'],
    [
      { ARBITER_BLOB_ENDPOINT: 'http://127.0.0.1:9000' },
      'ARBITER_BLOB_ENDPOINT: needs ARBITER_BLOB_URL',
    ],
  ])('refuses object storage settings that cannot work: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
