import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// Without ASKGATE_PUBLIC_URL the answer page is off: no /a/ route, and a link request says why.
let app: RunningAskgate;
beforeAll(async () => {
  app = await startTestApp(testEnv(), [new RecordingChannel('test')]);
});
afterAll(async () => {
  await app?.close();
});

describe('answer links when not configured', () => {
  it('POST /v1/asks/:id/links is 400 links_not_configured; /a/<token> is no route', async () => {
    const api = client(app.url);
    const ask = await api.post('/v1/asks', askBody('links-off', { to: { channel: 'test', chat: 'c1' } }));
    const res = await api.post(`/v1/asks/${ask.body.id}/links`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('links_not_configured');
    expect(res.body.error.message).toContain('ASKGATE_PUBLIC_URL');
    expect((await api.get('/a/abc.def')).status).toBe(404);
    expect((await api.post('/a/abc.def', {})).status).toBe(404);
  });
});
