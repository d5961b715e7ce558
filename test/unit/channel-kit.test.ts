import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChannelError } from '../../src/core/ports.js';
import { shorten } from '../../src/core/text.js';
import { describeError, isRefusal, retryAfterMs, scrubTokens } from '../../src/channels/shared/errors.js';
import { cutEscaped, fitToLimit } from '../../src/channels/shared/fit.js';
import { RecentIds } from '../../src/channels/shared/recent-ids.js';
import { responderOf } from '../../src/channels/shared/responder.js';
import { checkIdentity } from '../../src/channels/shared/startup.js';
import { UNGATED, settleOrShow, takeOrPass, type EffectGate } from '../../src/channels/shared/take-event.js';
import { tokenMatches } from '../../src/security/http.js';

const FAMILY = '👨‍👩‍👧'; // one grapheme, 8 UTF-16 units (ZWJ sequence)
const E_ACUTE = 'e\u0301'; // one grapheme, 2 units (combining mark)

describe('shorten: the one truncation, on grapheme boundaries', () => {
  it.each<[string, string, number, 'graphemes' | 'utf16', string]>([
    ['fits: unchanged', 'short', 10, 'graphemes', 'short'],
    ['cut with an ellipsis counted as one unit', 'exactly ten', 10, 'graphemes', 'exactly t…'],
    ['trailing space dropped before the ellipsis', 'a b c d e f', 5, 'graphemes', 'a b…'],
    [
      'a ZWJ emoji counts as one grapheme',
      `${FAMILY}${FAMILY}${FAMILY}`,
      3,
      'graphemes',
      `${FAMILY}${FAMILY}${FAMILY}`,
    ],
    ['a ZWJ emoji is never split', `${FAMILY}${FAMILY}${FAMILY}`, 2, 'graphemes', `${FAMILY}…`],
    ['a ZWJ emoji that does not fit in UTF-16 units is left out whole', `ab${FAMILY}cd`, 8, 'utf16', 'ab…'],
    ['combining marks stay on their letter', `${E_ACUTE.repeat(5)}`, 3, 'graphemes', `${E_ACUTE}${E_ACUTE}…`],
    ['combining marks are not cut off in UTF-16 units', `${E_ACUTE.repeat(5)}`, 4, 'utf16', `${E_ACUTE}…`],
    ['CJK', '日本語のテキストです', 5, 'graphemes', '日本語の…'],
    ['CJK in UTF-16 units', '日本語のテキストです', 5, 'utf16', '日本語の…'],
    ['nothing fits', 'abc', 0, 'utf16', ''],
    ['only the ellipsis fits', 'abc', 1, 'utf16', '…'],
  ])('%s', (_name, text, max, unit, out) => {
    expect(shorten(text, max, unit)).toBe(out);
    expect(
      unit === 'utf16' ? out.length : [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(out)].length,
    ).toBeLessThanOrEqual(max);
  });

  it('never leaves a lone surrogate', () => {
    for (let max = 1; max < 20; max++) expect(shorten(`x${'😀'.repeat(10)}`, max, 'utf16')).not.toMatch(/\p{Cs}/u);
  });
});

describe('fit to limit', () => {
  const levels = [100, 50, 10, 5];
  it('returns the first level whose build fits', () => {
    const built: number[] = [];
    const fitted = fitToLimit(
      levels,
      (n) => (built.push(n), 'x'.repeat(n)),
      (s) => s.length <= 20,
    );
    expect(fitted).toEqual({ value: 'x'.repeat(10), fits: true });
    expect(built).toEqual([100, 50, 10]);
  });

  it('returns the last build, unfitted, when none fits', () => {
    expect(
      fitToLimit(
        levels,
        (n) => 'x'.repeat(n),
        (s) => s.length <= 2,
      ),
    ).toEqual({ value: 'x'.repeat(5), fits: false });
  });

  it('cuts escaped text without splitting a surrogate pair, then lets the platform tidy the end', () => {
    expect(cutEscaped('abc', 3)).toBe('abc');
    expect(cutEscaped('ab😀cd', 4)).toBe('ab…');
    expect(cutEscaped('a &amp; b', 5, (head) => head.replace(/&[a-z]*$/, '').trimEnd())).toBe('a…');
  });
});

describe('responder mapping', () => {
  it('keeps the id as a string and leaves empty parts out', () => {
    expect(responderOf('telegram', { id: 42, username: '', name: '' })).toEqual({ channel: 'telegram', userId: '42' });
    expect(responderOf('discord', { id: '1', username: 'alice', name: null })).toEqual({
      channel: 'discord',
      userId: '1',
      username: 'alice',
    });
  });

  it('cuts username and name to the record limits', () => {
    const r = responderOf('slack', { id: 'U1', username: 'u'.repeat(200), name: `${'n'.repeat(254)}${FAMILY}` });
    expect(r.username).toHaveLength(128);
    expect(r.name).toBe(`${'n'.repeat(254)}…`);
  });
});

describe('error description', () => {
  const TG = '123456789:AAHk9-abcdefghijklmnopqrstuvwxyz012';
  const SLACK = 'xoxb-1234-5678-abcdefghijkl';
  const DISCORD = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789';

  it('scrubs every platform token', () => {
    const text = `fetch https://api.telegram.org/bot${TG}/getMe with ${SLACK} and ${DISCORD}`;
    const described = describeError(new TypeError(text));
    expect(described).not.toContain(TG.split(':')[1]!);
    expect(described).not.toContain(SLACK);
    expect(described).not.toContain(DISCORD);
    expect(described).toBe('TypeError: fetch https://api.telegram.org/bot[token]/getMe with [token] and [token]');
    expect(scrubTokens(SLACK)).toBe('[token]');
  });

  it('describes timeouts, channel errors, strings and the rest; at most 300 characters', () => {
    const abort = Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    expect(describeError(abort)).toBe('timed out');
    expect(describeError(new ChannelError('sendMessage: 403', true))).toBe('sendMessage: 403');
    expect(describeError(`plain ${SLACK}`)).toBe('plain [token]');
    expect(describeError({ body: 'secret answer' })).toBe('unknown error');
    expect(describeError(new Error('x'.repeat(1000)))).toHaveLength(300);
  });

  it('lets the platform describe its own errors first, and still scrubs them', () => {
    expect(
      describeError({ data: { error: 'invalid_auth' } }, (e) => (e as { data: { error: string } }).data.error),
    ).toBe('invalid_auth');
    expect(describeError(new Error('x'), () => `echo ${TG}`)).toBe('echo [token]');
  });

  it('classifies statuses and rate-limit hints', () => {
    expect([400, 401, 403, 404, 408, 429, 500].map(isRefusal)).toEqual([true, true, true, true, false, true, false]);
    expect([
      retryAfterMs(3),
      retryAfterMs('2'),
      retryAfterMs(undefined, 1000),
      retryAfterMs(0),
      retryAfterMs(-1, 5),
    ]).toEqual([3000, 2000, 1000, undefined, 5]);
  });

  it('ChannelError carries channel, method and cause; the old constructor still works', () => {
    const cause = new Error('ECONNRESET');
    const e = new ChannelError('sendMessage failed', false, 1000, {
      channel: 'telegram',
      method: 'sendMessage',
      cause,
    });
    expect(e).toMatchObject({
      name: 'ChannelError',
      permanent: false,
      retryAfterMs: 1000,
      channel: 'telegram',
      method: 'sendMessage',
    });
    expect(e.cause).toBe(cause);
    expect(JSON.stringify(e)).not.toContain('ECONNRESET');
    const old = new ChannelError('x', true);
    expect(old).toMatchObject({ permanent: true });
    expect(old.channel).toBeUndefined();
    expect('cause' in old).toBe(false);
  });
});

describe('recent-id set', () => {
  it('keeps at most max ids, forgetting the oldest first', () => {
    const recent = new RecentIds<boolean>(3);
    for (const id of ['a', 'b', 'c', 'd']) recent.set(id, true);
    expect(recent.size).toBe(3);
    expect(recent.get('a')).toBeUndefined();
    expect(recent.get('d')).toBe(true);
    recent.set('b', false); // refreshed: now the newest
    recent.set('e', true);
    expect([recent.get('b'), recent.get('c'), recent.get('e')]).toEqual([false, undefined, true]);
    for (let i = 0; i < 10_000; i++) recent.set(String(i), true);
    expect(recent.size).toBe(3);
  });
});

describe('startup identity check', () => {
  const unauthorized = Object.assign(new Error('401 Unauthorized'), { status: 401 });
  const check = (failures: unknown[], attempts?: number) => {
    const calls = { n: 0, waits: [] as number[] };
    const run = checkIdentity({
      call: async () => {
        calls.n++;
        if (failures.length > 0) throw failures.shift();
        return 'me';
      },
      fatal: (error) => ((error as { status?: number }).status === 401 ? new Error('token rejected') : null),
      unreachable: (error) => new Error(`unreachable: ${(error as Error).message}`),
      ...(attempts !== undefined ? { attempts } : {}),
      sleep: async (ms) => void calls.waits.push(ms),
    });
    return { run, calls };
  };

  it('retries network failures with a growing wait', async () => {
    const { run, calls } = check([new Error('ECONNREFUSED'), new Error('ECONNREFUSED')]);
    await expect(run).resolves.toBe('me');
    expect(calls).toEqual({ n: 3, waits: [500, 1000] });
  });

  it('gives up after N attempts', async () => {
    const { run, calls } = check(
      Array.from({ length: 9 }, () => new Error('ECONNREFUSED')),
      4,
    );
    await expect(run).rejects.toThrow('unreachable: ECONNREFUSED');
    expect(calls.n).toBe(4);
  });

  it('does not retry a 401', async () => {
    const { run, calls } = check([unauthorized]);
    await expect(run).rejects.toThrow('token rejected');
    expect(calls).toEqual({ n: 1, waits: [] });
  });
});

describe('constant-time compare', () => {
  it('matches equal secrets only, whatever the lengths and types', () => {
    expect(tokenMatches('s3cret', 's3cret')).toBe(true);
    expect(tokenMatches(Buffer.from('s3cret'), 's3cret')).toBe(true);
    expect(tokenMatches('s3cre', 's3cret')).toBe(false);
    expect(tokenMatches('', 's3cret')).toBe(false);
    expect(tokenMatches(undefined, 's3cret')).toBe(false);
  });
});

describe('event gates for platforms that cannot ask for a re-send', () => {
  const gate = (settle: () => Promise<boolean>): EffectGate => ({ retried: false, settle });
  const down = () => Promise.reject(new Error('store unavailable'));

  it('takeOrPass: null when another attempt settled or holds the event, ungated when the store cannot answer', async () => {
    const errors: unknown[] = [];
    const onError = (e: unknown) => void errors.push(e);
    const mine = gate(async () => true);
    expect(await takeOrPass(async () => mine, onError)).toBe(mine);
    expect(await takeOrPass(async () => 'done', onError)).toBeNull();
    expect(await takeOrPass(async () => 'busy', onError)).toBeNull();
    expect(await takeOrPass(down, onError)).toBe(UNGATED);
    expect(errors).toHaveLength(1);
  });

  it('settleOrShow: the settle decides; a store that cannot answer does not silence the effect', async () => {
    const errors: unknown[] = [];
    expect(
      await settleOrShow(
        gate(async () => false),
        (e) => errors.push(e),
      ),
    ).toBe(false);
    expect(await settleOrShow(gate(down), (e) => errors.push(e))).toBe(true);
    expect(errors).toHaveLength(1);
  });
});

describe('one implementation of each idea', () => {
  const SRC = resolve(import.meta.dirname, '../../src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [relative(SRC, path)] : [];
    });
  const using = (pattern: RegExp) => files(SRC).filter((f) => pattern.test(readFileSync(join(SRC, f), 'utf8')));

  it('constant-time compare lives in security/http.ts (the SDK, shipped on its own, keeps its own)', () => {
    expect(using(/timingSafeEqual\(/).filter((f) => f !== 'client/webhook.ts')).toEqual(['security/http.ts']);
  });

  it('grapheme segmentation lives in core: the one truncation and the text rules, in core/text.ts', () => {
    expect(using(/Intl\.Segmenter/).sort()).toEqual(['core/text.ts']);
  });
});
