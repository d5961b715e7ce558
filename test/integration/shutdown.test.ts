import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';

// A client (fetch's connection pool, a load balancer's pre-opened socket) may open a connection and
// never send a request on it. Shutdown must not wait for the server's headers timeout (60 s) on it.

const open = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });

describe('shutdown', () => {
  it('closes a connection that never sent a request instead of waiting out the headers timeout', async () => {
    const app = await startTestApp(testEnv());
    const silent = await open(app.url);
    const ended = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    // The test's own 20 s limit is below the 60 s headers timeout: the old close() hangs past it.
    await app.close();
    await ended;
    expect(silent.destroyed).toBe(true);
  }, 20_000);
});
