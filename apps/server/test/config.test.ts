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
  ])('names the variable of a bad value: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads platform owner emails as a lower-cased list', () => {
    expect(
      loadConfig({ ARBITER_PLATFORM_OWNER_EMAILS: ' Boss@Arbiter.dev, ops@arbiter.dev ,' })
        .platformOwnerEmails,
    ).toEqual(['boss@arbiter.dev', 'ops@arbiter.dev']);
  });
});
