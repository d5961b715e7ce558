// The invoke handler's deadline and error answer against a test sink (the InboundSink port, as
// other channels' race tests use): an invoke whose request arrived long ago is answered at once
// with "being recorded…", the sink call finishes afterwards and a refusal is handed on to be
// replied; a failing sink is answered with Teams' error shape in the person's language.
import { describe, expect, it } from 'vitest';
import { InvokeHandler, INVOKE_DEADLINE_MS } from '../../src/channels/teams/invoke.js';
import { createLogger } from '../../src/logger.js';
import type { InboundOutcome, InboundSink } from '../../src/core/ports.js';

const alice = { channel: 'teams', userId: 'aad-alice', name: 'Alice' };
const tap = (locale: string, arrivedAt?: number) => ({
  activityId: undefined,
  user: alice,
  chat: 'a:chat',
  locale,
  value: { action: { type: 'Action.Execute', verb: 'askgate', data: { askgate: 'AbCdEfGhIjKl.1.1' } } },
  ...(arrivedAt !== undefined ? { arrivedAt } : {}),
});
const sinkWith = (button: () => Promise<InboundOutcome>): InboundSink => ({
  button,
  text: async () => ({ kind: 'ignored' }),
  openForm: async () => ({ kind: 'ignored' }),
  submitForm: async () => ({ kind: 'ignored' }),
  bindFollowUp: async () => {},
});
const handler = () => new InvokeHandler(createLogger('silent'), { now: () => Date.now() });

describe('Teams invoke handler: deadline and errors', () => {
  it('past the deadline: "being recorded…" at once; the refusal the sink gives later is handed on once', async () => {
    let release!: (o: InboundOutcome) => void;
    const late: string[] = [];
    const started = Date.now();
    const answer = await handler().handle(
      sinkWith(() => new Promise((r) => (release = r))),
      tap('fr-FR', Date.now() - INVOKE_DEADLINE_MS),
      async (notice) => void late.push(notice),
    );
    expect(Date.now() - started).toBeLessThan(500);
    expect(answer.body).toEqual({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'Votre réponse est en cours d’enregistrement…',
    });
    expect(late).toEqual([]);
    release({ kind: 'expired', summary: 'Cette question a expiré.' });
    await expect.poll(() => late).toEqual(['Cette question a expiré.']);
  });

  it('a sink that answers in time is the answer; nothing is handed on', async () => {
    const late: string[] = [];
    const answer = await handler().handle(
      sinkWith(async () => ({ kind: 'recorded', summary: 'Antwort gespeichert' })),
      tap('de-DE'),
      async (n) => void late.push(n),
    );
    expect(answer.body).toMatchObject({ value: 'Antwort gespeichert' });
    await new Promise((r) => setTimeout(r, 50));
    expect(late).toEqual([]);
  });

  it('a recorded answer after the deadline is left to the card’s own edit (no reply)', async () => {
    let release!: (o: InboundOutcome) => void;
    const late: string[] = [];
    const sink = sinkWith(() => new Promise((r) => (release = r)));
    await handler().handle(sink, tap('en-US', 0), async (n) => void late.push(n));
    release({ kind: 'recorded', summary: 'Answer recorded' });
    await new Promise((r) => setTimeout(r, 50));
    expect(late).toEqual([]);
  });

  it('a failing sink: Teams’ error answer in the person’s language', async () => {
    const answer = await handler().handle(
      sinkWith(async () => {
        throw new Error('store unavailable');
      }),
      tap('de-DE'),
    );
    expect(answer).toEqual({
      status: 200,
      body: {
        statusCode: 500,
        type: 'application/vnd.microsoft.error',
        value: { code: 'InternalError', message: 'askgate konnte das nicht speichern: versuch es noch einmal.' },
      },
    });
  });
});
