import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { channelFor, deliveredRef, memoryLogger, mockup, newUser, showsButton, tapLabel } from './telegram-world.js';
import type { RunningAskgate } from '../../src/main.js';

const DOC = resolve(import.meta.dirname, '../../docs/forms-telegram.md');
let fake: FakeTelegramApi;
let app: RunningAskgate;

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  app = await startTestApp(testEnv(), [channelFor(fake, memoryLogger())]);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** The fenced blocks of the docs page, in order. */
function docBlocks(): string[] {
  return [...readFileSync(DOC, 'utf8').matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

describe('docs/forms-telegram.md shows the form as the fake renders it', () => {
  it('step 1, step 2 with toggles, and the answered message', async () => {
    const api = client(app.url);
    const user = newUser(fake, 'Alice', 'alice');
    const questions = [
      {
        id: 'env',
        header: 'Env',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging', description: 'safe place to try' }, { label: 'Production' }],
      },
      {
        id: 'checks',
        header: 'Checks',
        question: 'Which checks should run first?',
        multiSelect: true,
        options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
      },
    ];
    const to = { channel: 'telegram', chat: String(user.id) };
    const { body } = await api.post('/v1/asks', askBody('mockup', { to, questions, timeoutSeconds: 60 }));
    const ref = await deliveredRef(api, body.id);
    const shots = [mockup(fake, ref)];
    await tapLabel(fake, ref, 'Production', user);
    await tapLabel(fake, ref, '☐ lint', user);
    await showsButton(fake, ref, '☑ lint');
    await tapLabel(fake, ref, '☐ e2e', user);
    await showsButton(fake, ref, '☑ e2e');
    shots.push(mockup(fake, ref));
    await tapLabel(fake, ref, 'Submit', user);
    await eventually(async () =>
      (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].finalized === 'done' ? true : undefined,
    );
    shots.push(mockup(fake, ref));
    if (process.env.PRINT_MOCKUPS) console.log(shots.join('\n\n-----\n\n'));
    expect(docBlocks().slice(0, 3)).toEqual(shots);
  });
});
