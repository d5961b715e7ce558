// Every prompt kind on Teams end to end, through the cards' own inputs: several questions and a
// multi-select as one form, typed questions (number, date, text), approvals (Approve at once,
// Reject with a reason, a blank reason refused on the spot), an incomplete form, and the
// Action.Submit fallback of clients without Universal Actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { message } from '../fakes/teams-connector.js';
import {
  ALICE,
  DM,
  askOnTeams,
  click,
  executeActions,
  installForAlice,
  resultOf,
  shownCard,
  startTeamsWorld,
  textsOf,
  type TeamsWorld,
} from './teams-world.js';

let w: TeamsWorld;
beforeAll(async () => {
  w = await startTeamsWorld();
  await installForAlice(w);
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const titles = (content: any) => executeActions(content).map((a) => a.title);
/** The Execute action whose data carries the token of `kind` (decodeToken's last part). */
const submitOf = (content: any) =>
  executeActions(content).find((a) => String(a.data.askgate).endsWith('.f')) ?? expect.fail('no Submit');

describe('Teams prompt kinds', () => {
  it('several questions with a multi-select are one form on the card; its Submit answers them all', async () => {
    const { id, card } = await askOnTeams(w, {
      questions: [
        { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        {
          id: 'checks',
          header: 'Checks',
          question: 'Which checks?',
          multiSelect: true,
          options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
        },
      ],
    });
    const content = shownCard(card!);
    const inputs = JSON.stringify(content);
    expect(inputs).toContain('Input.ChoiceSet');
    expect(inputs).toContain('"isMultiSelect":true');
    const submit = submitOf(content);
    const answer = await click(w, card!, submit.title, ALICE, { inputs: { askgate_q1: '2', askgate_q2: '1,3' } });
    expect(answer.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
    expect(await resultOf(w, id)).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'], checks: ['lint', 'e2e'] },
    });
    await eventually(async () => card!.updates.length > 0);
    expect(titles(shownCard(card!))).toEqual([]);
  });

  it('an incomplete form is refused with what to fix and the card stays open', async () => {
    const { id, card } = await askOnTeams(w, {
      questions: [
        { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        { id: 'when', question: 'When?', kind: 'date' },
      ],
    });
    const submit = submitOf(shownCard(card!));
    const answer = await click(w, card!, submit.title, ALICE, { inputs: { askgate_q1: '1' } });
    expect(answer.body.type).toBe('application/vnd.microsoft.activity.message');
    expect(String(answer.body.value)).not.toBe('');
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expect(card!.updates).toEqual([]);
    // Fixed and sent again (a new invoke): answered.
    await click(w, card!, submit.title, ALICE, { inputs: { askgate_q1: '1', askgate_q2: '2031-05-04' } });
    expect((await resultOf(w, id)).values).toEqual({ env: ['Staging'], when: '2031-05-04' });
  });

  it('typed questions use the card’s native inputs (number, date, text)', async () => {
    const { id, card } = await askOnTeams(w, {
      questions: [
        { id: 'replicas', question: 'How many replicas?', kind: 'number' },
        { id: 'day', question: 'Which day?', kind: 'date' },
        { id: 'name', question: 'Release name?', kind: 'text' },
      ],
    });
    const kinds = JSON.stringify(shownCard(card!));
    for (const input of ['Input.Number', 'Input.Date', 'Input.Text']) expect(kinds).toContain(input);
    await click(w, card!, submitOf(shownCard(card!)).title, ALICE, {
      inputs: { askgate_q1: '3', askgate_q2: '2031-05-04', askgate_q3: 'Aurora' },
    });
    expect((await resultOf(w, id)).values).toEqual({ replicas: 3, day: '2031-05-04', name: 'Aurora' });
  });

  it('an approval: Approve decides at once; the outcome shows the decision', async () => {
    const { id, card } = await askOnTeams(w, {
      approval: { action: 'deploy', summary: 'Deploy v2 to production', arguments: { service: 'api' } },
    });
    expect(textsOf(shownCard(card!)).join('\n')).toContain('Deploy v2 to production');
    // The action and the arguments' hash are facts on the card.
    expect(JSON.stringify(shownCard(card!))).toContain('FactSet');
    const answer = await click(w, card!, 'Approve');
    expect(answer.body.statusCode).toBe(200);
    expect(await resultOf(w, id)).toMatchObject({ status: 'answered', decision: 'approve' });
    await eventually(async () => card!.updates.length > 0);
    expect(titles(shownCard(card!))).toEqual([]);
  });

  it('an approval: Reject needs a reason — a blank one is refused on the spot, a real one decides', async () => {
    const { id, card } = await askOnTeams(w, { approval: { action: 'deploy', arguments: { service: 'api' } } });
    const reject = executeActions(shownCard(card!)).find((a) => String(a.data.askgate).endsWith('.dr'));
    expect(reject, JSON.stringify(titles(shownCard(card!)))).toBeDefined();
    const reasonField = Object.keys(reject!.data).length > 1 ? undefined : 'askgate_reason_r';
    const blank = await click(w, card!, reject!.title, ALICE, {
      inputs: { [reasonField ?? 'askgate_reason_r']: '  ' },
    });
    expect(blank.body.type).toBe('application/vnd.microsoft.activity.message');
    expect(blank.body.value).toMatch(/why/i);
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    await click(w, card!, reject!.title, ALICE, { inputs: { askgate_reason_r: 'too risky today' } });
    expect(await resultOf(w, id)).toMatchObject({ status: 'answered', decision: 'reject' });
  });

  it('the Action.Submit fallback (a message carrying the action data) answers, and the notice replies', async () => {
    const { id, card } = await askOnTeams(w, {
      questions: [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }],
    });
    const staging = executeActions(shownCard(card!)).find((a) => a.title === 'Staging')!;
    const submit: any = message(w.people, ALICE, DM, 'personal', '', { replyToId: card!.id });
    submit.text = '';
    submit.value = { ...staging.data };
    expect((await w.fake.post(w.endpoint, submit)).status).toBe(200);
    expect(await resultOf(w, id)).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    const notice = await eventually(async () => [...w.fake.activities.values()].find((a) => a.replyToId === card!.id));
    expect(notice.body.text).toMatch(/recorded/i);
  });
});

describe('Teams in the person’s language', () => {
  const typed = [
    { id: 'replicas', question: 'How many replicas?', kind: 'number' },
    { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  ];

  it('a German ask draws German card words; a German click on a bad typed value is refused in German, then repaired', async () => {
    const { id, card } = await askOnTeams(w, { locale: 'de', questions: typed });
    const submit = submitOf(shownCard(card!));
    expect(submit.title).toBe('Absenden');
    expect(textsOf(shownCard(card!)).join('\n')).toContain('Fülle die Karte aus und tippe auf Absenden.');
    const bad = await click(w, card!, submit.title, ALICE, { locale: 'de-DE', inputs: { askgate_q1: 'drei' } });
    expect(bad.body).toEqual({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: expect.stringMatching(/^Frage 1: .*Zahl/),
    });
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expect(card!.updates).toEqual([]);
    const fixed = await click(w, card!, submit.title, ALICE, {
      locale: 'de-DE',
      inputs: { askgate_q1: '2.5', askgate_q2: '1' },
    });
    expect(fixed.body.value).toBe('Antwort gespeichert');
    expect((await resultOf(w, id)).values).toEqual({ replicas: 2.5, env: ['Staging'] });
  });

  it('an English ask clicked from a German Teams: the refusal is in German, the shared card stays English', async () => {
    const { id, card } = await askOnTeams(w, { questions: typed });
    const submit = submitOf(shownCard(card!));
    expect(submit.title).toBe('Submit');
    const bad = await click(w, card!, submit.title, ALICE, {
      locale: 'de-DE',
      inputs: { askgate_q1: 'viele', askgate_q2: '2' },
    });
    expect(bad.body.value).toMatch(/^Frage 1: .*Zahl/);
    await click(w, card!, submit.title, ALICE, { locale: 'de-DE', inputs: { askgate_q1: '4', askgate_q2: '2' } });
    expect((await resultOf(w, id)).values).toEqual({ replicas: 4, env: ['Production'] });
    await eventually(async () => card!.updates.length > 0);
    expect(textsOf(shownCard(card!)).join('\n')).toMatch(/Production/);
  });
});
