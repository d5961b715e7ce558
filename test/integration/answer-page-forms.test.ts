import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// The answer page's forms (issue 38): every shape a person can send from it, each checked and
// committed like the API's answer: an approval's Edit, a self-approval refused, Skip, several
// choices with own words, a datetime-local read in the ask's zone, an ask that needs two matching
// answers, and the page's language (the ask's, else the browser's).

const PUBLIC = 'https://askgate.example.com';
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(
    testEnv({ ASKGATE_PUBLIC_URL: PUBLIC, ASKGATE_LINK_SECRET: 'forms-link-secret-0123456789abcdefghij' }),
    [new RecordingChannel('test')],
  );
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
});

let runs = 0;
async function open(extra: Record<string, unknown>, link: Record<string, unknown> = {}) {
  const created = await api.post('/v1/asks', {
    runId: `forms-${++runs}`,
    to: { channel: 'test', chat: 'c1' },
    timeoutSeconds: 600,
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const minted = await api.post(`/v1/asks/${created.body.id}/links`, link);
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const url = app.url + (minted.body.url as string).slice(PUBLIC.length);
  const html = await (await fetch(url)).text();
  const guard = /name="guard" value="([^"]+)"/.exec(html)![1]!;
  const send = async (fields: [string, string][], headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams([['guard', guard], ...fields]).toString(),
    });
    return { status: res.status, html: await res.text() };
  };
  const record = async () => (await api.get(`/v1/asks/${created.body.id}`)).body;
  return { id: created.body.id as string, url, html, send, record };
}

const deploy = { action: 'deploy', arguments: { env: 'prod', replicas: 3 }, decisions: ['approve', 'reject', 'edit'] };

describe('the answer page forms', () => {
  it('Edit: arguments that are not a JSON object are refused; edited ones are approved with their own hash', async () => {
    const ask = await open({ approval: deploy });
    expect(ask.html).toContain('&quot;replicas&quot;: 3');
    const bad = await ask.send([
      ['decision', 'edit'],
      ['arguments', '{"env": '],
    ]);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('JSON object');
    expect(bad.html).toContain('{&quot;env&quot;: </textarea>');
    expect((await ask.record()).status).toBe('pending');
    const ok = await ask.send([
      ['decision', 'edit'],
      ['arguments', '{"env": "staging", "replicas": 1}'],
    ]);
    expect(ok.status).toBe(200);
    const { result, approval } = await ask.record();
    expect(result).toMatchObject({ decision: 'edit', arguments: { env: 'staging', replicas: 1 } });
    expect(result.effectiveHash).not.toBe(approval.actionHash);
  });

  it('a decision the approval does not offer is refused', async () => {
    const ask = await open({ approval: { ...deploy, decisions: ['approve', 'reject'] } });
    expect(ask.html).not.toContain('value="edit"');
    expect((await ask.send([['decision', 'edit']])).status).toBe(400);
    expect((await ask.send([['decision', 'nonsense']])).status).toBe(400);
    expect((await ask.record()).status).toBe('pending');
  });

  it('the person who requested the action cannot approve it through their link', async () => {
    const ask = await open(
      { approval: { ...deploy, requestedBy: { channel: 'test', userId: 'alice' } } },
      { to: { channel: 'test', chat: 'alice' } },
    );
    const refused = await ask.send([['decision', 'approve']]);
    expect(refused.status).toBe(400);
    expect((await ask.record()).status).toBe('pending');
  });

  it('Skip ends the ask as skipped by the link', async () => {
    const ask = await open({ questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] });
    expect((await ask.send([['skip', '1']])).status).toBe(200);
    expect((await ask.record()).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });

  it('several choices and own words; a single choice with both is refused beside its field', async () => {
    const ask = await open({
      questions: [
        { id: 'm', question: 'Which checks?', multiSelect: true, options: [{ label: 'lint' }, { label: 'tests' }] },
        { id: 's', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
      ],
    });
    const both = await ask.send([
      ['c0', '1'],
      ['c1', '0'],
      ['o1', 'the moon'],
    ]);
    expect(both.status).toBe(400);
    expect(both.html).toMatch(/id="p1"[^>]*>Choose an option or write your own answer, not both/);
    expect(both.html).toContain('value="the moon"');
    const forged = await ask.send([
      ['c0', '7'],
      ['c1', '0'],
    ]);
    expect(forged.status).toBe(400);
    const ok = await ask.send([
      ['c0', '0'],
      ['c0', '1'],
      ['o0', 'e2e'],
      ['c1', '1'],
    ]);
    expect(ok.status).toBe(200);
    expect((await ask.record()).result.answers).toEqual({ m: ['lint', 'tests', 'e2e'], s: ['Production'] });
  });

  it("a datetime-local value is a wall time in the ask's zone", async () => {
    const ask = await open({
      timeZone: 'America/Sao_Paulo',
      questions: [{ id: 'at', question: 'When?', kind: 'datetime' }],
    });
    expect(ask.html).toContain('type="datetime-local"');
    expect((await ask.send([['o0', '2026-12-20T10:30']])).status).toBe(200);
    expect((await ask.record()).result.answers.at[0]).toMatch(/^2026-12-20T10:30(:00)?(\.000)?-03:00$/);
  });

  it('an ask that needs two matching answers: the first is counted and the ask stays open', async () => {
    const ask = await open({
      agree: 2,
      questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    });
    expect(ask.html).not.toContain('name="skip"');
    const first = await ask.send([['c0', '0']]);
    expect(first.status).toBe(200);
    expect(first.html).toContain('more matching answers are needed');
    expect((await ask.record()).status).toBe('pending');
  });

  it("the page speaks the ask's language, else the browser's", async () => {
    const question = [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }];
    const pt = await open({ locale: 'pt-BR', questions: question });
    expect(pt.html).toContain('<html lang="pt-BR"');
    expect(pt.html).toContain('>Enviar</button>');
    const plain = await open({ questions: question });
    const de = await (await fetch(plain.url, { headers: { 'accept-language': 'ko, de-CH;q=0.9, en;q=0.5' } })).text();
    expect(de).toContain('<html lang="de"');
    expect(de).toContain('>Senden</button>');
  });
});
