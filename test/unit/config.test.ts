import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('an empty environment gives the embedded defaults: loopback, memory store, 900 s timeouts', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      redisUrl: undefined,
      timeouts: { defaultSeconds: 900, minSeconds: 30, maxSeconds: 3600, asyncMaxSeconds: 2_592_000 },
    });
    expect(config.reconciler.graceMs).toBeLessThan(config.retentionMs);
  });

  it('refuses a reconciler grace as long as the retention: a lost timeout job would let the record expire first', () => {
    expect(() => loadConfig({ ASKGATE_RETENTION_SECONDS: '60', ASKGATE_RECONCILE_GRACE_MS: '60000' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ ASKGATE_RETENTION_SECONDS: '60', ASKGATE_RECONCILE_GRACE_MS: '120000' })).toThrow(
      /ASKGATE_RECONCILE_GRACE_MS must be shorter than ASKGATE_RETENTION_SECONDS/,
    );
    expect(
      loadConfig({ ASKGATE_RETENTION_SECONDS: '60', ASKGATE_RECONCILE_GRACE_MS: '59999' }).reconciler.graceMs,
    ).toBe(59_999);
  });

  it('refuses contradictory settings with a message naming them', () => {
    expect(() => loadConfig({ ASKGATE_TIMEOUT_MIN_SECONDS: '100', ASKGATE_TIMEOUT_MAX_SECONDS: '50' })).toThrow(
      /ASKGATE_TIMEOUT_MIN_SECONDS is above/,
    );
    expect(() => loadConfig({ REDIS_CLUSTER: 'true' })).toThrow(/REDIS_CLUSTER=true needs REDIS_URL/);
    expect(() => loadConfig({ REDIS_URL: 'redis://a:1,redis://b:2' })).toThrow(/set REDIS_CLUSTER=true/);
    expect(() =>
      loadConfig({ TELEGRAM_BOT_TOKEN: '1:x', TELEGRAM_WEBHOOK_URL: 'https://example.org/telegram/webhook' }),
    ).toThrow(/needs TELEGRAM_WEBHOOK_SECRET/);
  });
});

describe('ASKGATE_DEFAULT_LOCALE', () => {
  it('defaults to English and keeps a tag in canonical form', () => {
    expect(loadConfig({}).defaultLocale).toBe('en');
    expect(loadConfig({ ASKGATE_DEFAULT_LOCALE: 'pt-br' }).defaultLocale).toBe('pt-BR');
    expect(loadConfig({ ASKGATE_DEFAULT_LOCALE: ' de ' }).defaultLocale).toBe('de');
  });

  it('refuses a malformed tag, naming the variable', () => {
    expect(() => loadConfig({ ASKGATE_DEFAULT_LOCALE: 'en_US' })).toThrow(
      /ASKGATE_DEFAULT_LOCALE: must be a BCP 47 language tag/,
    );
  });

  it('says at startup when the language is not shipped (English is used)', () => {
    const config = loadConfig({ ASKGATE_DEFAULT_LOCALE: 'ko' });
    expect(config.defaultLocale).toBe('ko');
    expect(config.notices.join('\n')).toMatch(/ASKGATE_DEFAULT_LOCALE=ko is not a language askgate ships/);
    expect(loadConfig({ ASKGATE_DEFAULT_LOCALE: 'pt-PT' }).notices.join('\n')).not.toMatch(/DEFAULT_LOCALE/);
  });
});

describe('event stream caps', () => {
  it('default to 100 per run or ask and 1,000 per process; a cap below 1 is refused, naming the variable', () => {
    expect(loadConfig({}).eventStreams).toEqual({ perKey: 100, total: 1000 });
    expect(loadConfig({ ASKGATE_EVENT_STREAMS_PER_RUN: '5', ASKGATE_EVENT_STREAMS_MAX: '50' }).eventStreams).toEqual({
      perKey: 5,
      total: 50,
    });
    expect(() => loadConfig({ ASKGATE_EVENT_STREAMS_PER_RUN: '0' })).toThrow(/ASKGATE_EVENT_STREAMS_PER_RUN/);
    expect(() => loadConfig({ ASKGATE_EVENT_STREAMS_MAX: 'many' })).toThrow(/ASKGATE_EVENT_STREAMS_MAX/);
  });
});
