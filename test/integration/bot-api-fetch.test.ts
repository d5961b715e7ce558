import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, HttpError } from 'grammy';
import { botApiFetch } from '../../src/channels/telegram/bot-api-fetch.js';

// The fetch grammy's client runs on (node:http), against a local server: what grammy reads of a
// response, its abort signal (its call timeout), network errors and streamed bodies.

let server: http.Server;
let base = '';
const seen: { method: string; url: string; body: string; type: string | undefined }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        body: Buffer.concat(chunks).toString(),
        type: req.headers['content-type'],
      });
      if (req.url!.includes('/hang')) return; // never answers
      if (req.url!.includes('/notjson')) return res.end('<html>gateway</html>');
      res.writeHead(req.url!.includes('/conflict') ? 409 : 200, { 'content-type': 'application/json' });
      const echo = Buffer.concat(chunks).toString();
      res.end(JSON.stringify({ ok: !req.url!.includes('/conflict'), result: { echo } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('botApiFetch', () => {
  it('posts the body with its headers and gives the status and the JSON, for any status', async () => {
    const ok = await botApiFetch(`${base}/botT/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"chat_id":1,"text":"héllo"}',
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, result: { echo: '{"chat_id":1,"text":"héllo"}' } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/botT/sendMessage', type: 'application/json' });

    const conflict = await botApiFetch(`${base}/botT/conflict`, { method: 'POST', body: Buffer.from('{}') });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({ ok: false, result: { echo: '{}' } });
  });

  it('sends a streamed body (a file upload) whole', async () => {
    const body = Readable.from([Buffer.from('part one, '), Buffer.from('part two')]);
    const r = await botApiFetch(`${base}/botT/sendDocument`, { method: 'POST', body });
    expect(await r.json()).toEqual({ ok: true, result: { echo: 'part one, part two' } });
  });

  it('a body that is not JSON rejects at json(), as fetch does', async () => {
    const r = await botApiFetch(`${base}/botT/notjson`);
    expect(r.status).toBe(200);
    await expect(r.json()).rejects.toThrow(SyntaxError);
  });

  it('an aborted signal rejects with an AbortError, before the call and while it waits', async () => {
    const before = new AbortController();
    before.abort();
    await expect(botApiFetch(`${base}/botT/x`, { signal: before.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const during = new AbortController();
    const call = botApiFetch(`${base}/botT/hang`, { method: 'POST', body: '{}', signal: during.signal });
    setTimeout(() => during.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a refused connection rejects', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(botApiFetch(`http://127.0.0.1:${port}/botT/getMe`)).rejects.toThrow();
  });

  it('under grammy: a result comes back, a hung call ends at its timeout as an HttpError, a refused one too', async () => {
    const api = new Api('T', { apiRoot: base, fetch: botApiFetch as unknown as typeof fetch, timeoutSeconds: 1 });
    expect(await api.raw.getMe()).toEqual({ echo: '{}' });
    const hung = new Api('T', {
      apiRoot: `${base}/hang`,
      fetch: botApiFetch as unknown as typeof fetch,
      timeoutSeconds: 1,
    });
    await expect(hung.raw.getMe()).rejects.toBeInstanceOf(HttpError);
    expect(seen.some((s) => s.url === '/hang/botT/getMe')).toBe(true);
    const refused = new Api('T', { apiRoot: 'http://127.0.0.1:1', fetch: botApiFetch as unknown as typeof fetch });
    await expect(refused.raw.getMe()).rejects.toBeInstanceOf(HttpError);
  });
});
