import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateClient, type AskView } from '../../src/client/index.js';
import { askUserQuestionViaAskgate } from '../../examples/claude-agent-sdk-askuserquestion.js';
import { releaseAgent } from '../../examples/openai-agents.js';
import { releaseGraph } from '../../examples/langgraph.js';
import { EmailAgent } from '../../examples/ag-ui.js';
import { runWithAskgate as runGraph } from '../../src/adapters/langgraph.js';
import { runWithAskgate as runAgUi } from '../../src/adapters/ag-ui.js';
import type { RunningAskgate } from '../../src/main.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let sdk: AskgateClient;
const channel = new RecordingChannel('test');
let run = 0;

beforeAll(async () => {
  // Memory mode: the adapters only talk HTTP to askgate.
  app = await startTestApp(testEnv(), [channel]);
  api = client(app.url);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await app?.close();
});

/** An onCreated that answers each ask through the API with the next scripted body. */
function answering(...bodies: (Record<string, unknown> | ((ask: AskView) => Record<string, unknown>))[]) {
  const asked: AskView[] = [];
  const onCreated = (ask: AskView) => {
    asked.push(ask);
    const body = bodies.shift();
    if (body)
      setTimeout(() => void api.post(`/v1/asks/${ask.id}/answer`, typeof body === 'function' ? body(ask) : body), 50);
  };
  return { asked, onCreated };
}

describe('Claude Agent SDK AskUserQuestion adapter', () => {
  const q = (question: string, multiSelect = false) => ({
    question,
    header: 'H',
    multiSelect,
    options: [{ label: 'Alpha (Recommended)', description: 'first' }, { label: 'Beta' }, { label: 'Gamma' }],
  });

  it('returns allow with answers keyed by question text, multi-select joined with ", "', async () => {
    const { onCreated, asked } = answering({ answers: { q1: ['alpha'], q2: ['Beta', 'Gamma'] } });
    const handle = askUserQuestionViaAskgate(sdk, {
      runId: `claude-${++run}`,
      to: { channel: 'test', chat: 'c1' },
      onCreated,
    });
    const input = { questions: [q('Which one?'), q('Which ones?', true)] };
    const result = await handle(input, { toolUseID: 'toolu_01' });
    expect(result).toEqual({
      behavior: 'allow',
      updatedInput: { ...input, answers: { 'Which one?': 'Alpha (Recommended)', 'Which ones?': 'Beta, Gamma' } },
    });
    expect(asked[0]!.to).toMatchObject({ channel: 'test', chat: 'c1' });
    expect(asked[0]!.questions.map((x) => 'multiSelect' in x && x.multiSelect)).toEqual([false, true]);
  });

  it('four questions become two asks on the run; free text passes through', async () => {
    const { onCreated, asked } = answering(
      { answers: { q1: ['Beta'], q2: ['Gamma'], q3: ['my own words'] } },
      { answers: { q4: ['Alpha'] } },
    );
    const handle = askUserQuestionViaAskgate(sdk, { runId: `claude-${++run}`, onCreated });
    const result = await handle({ questions: [q('One?'), q('Two?'), q('Three?'), q('Four?')] });
    expect(asked.map((a) => a.questions.map((x) => x.id))).toEqual([['q1', 'q2', 'q3'], ['q4']]);
    expect(result).toMatchObject({
      behavior: 'allow',
      updatedInput: {
        answers: { 'One?': 'Beta', 'Two?': 'Gamma', 'Three?': 'my own words', 'Four?': 'Alpha (Recommended)' },
      },
    });
  });

  it('no answer is a deny that tells Claude to proceed', async () => {
    const handle = askUserQuestionViaAskgate(sdk, { runId: `claude-${++run}`, timeoutSeconds: 1 });
    const result = await handle({ questions: [q('Which one?')] });
    expect(result).toEqual({ behavior: 'deny', message: expect.stringContaining('did not answer (timeout)') });
  });
});

describe('the framework examples in process (the adapters themselves: test/integration/adapters-*.test.ts)', () => {
  it('OpenAI Agents: the release agent offers ask_user and an approval-gated deploy', () => {
    const agent = releaseAgent(sdk, `openai-${++run}`);
    expect(agent.tools.map((t) => t.name)).toEqual(['ask_user', 'deploy']);
  });

  it('LangGraph: the release graph asks at each node and falls back on no answer', async () => {
    const { onCreated, asked } = answering({ answers: { target: ['production'] } }, { skip: true });
    const final = await runGraph(sdk, releaseGraph(), { version: 'v9' }, { threadId: `lg-${++run}`, onCreated });
    expect(final).toMatchObject({ target: 'Production', checks: ['smoke'] });
    expect(final.log).toEqual(['target: Production', 'checks: smoke']);
    expect(asked.map((a) => a.version)).toEqual([1, 2]);
  });

  it('AG-UI: the email agent’s approval interrupt is asked and resumed', async () => {
    const { onCreated, asked } = answering({ decision: 'reject', reason: 'not before the release notes' });
    const result = await runAgUi(sdk, new EmailAgent({ threadId: `agui-${++run}` }), { onCreated });
    expect(result.result).toBe('email not sent');
    expect(asked[0]!.approval).toMatchObject({
      action: 'send_email',
      arguments: { to: 'team@example.com', subject: 'Release v2.3' },
    });
  });
});

describe('the examples run against a local askgate', () => {
  it.each([
    ['claude-agent-sdk-askuserquestion.ts', /"behavior": "allow"/],
    ['openai-agents.ts', /"status":"answered".*\n.*deployed v2\.3 to production/],
    ['langgraph.ts', /target: Staging \(Recommended\)\nchecks: smoke/],
    ['ag-ui.ts', /result: "email sent"/],
  ])(
    'cd examples && npx tsx %s',
    async (file, expected) => {
      // As the README writes it. From examples/, tsx reads examples/tsconfig.json: without the root's
      // allowJs, which makes tsx load the TypeScript source fast-json-patch (under @ag-ui/client)
      // ships by mistake instead of its JavaScript.
      const command = /`([^`]*npx tsx [^`]*)<file>`/.exec(README)?.[1];
      expect(command, 'the README names the command').toBeDefined();
      const child = spawn('bash', ['-c', command + file], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const answered = new Set<string>();
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        // Answer each ask the way the printed curl command would.
        for (const m of out.matchAll(/curl -s -X POST (\S+) -H 'content-type: application\/json' -d '(.*)'/g)) {
          if (answered.has(m[1]!)) continue;
          answered.add(m[1]!);
          void fetch(m[1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: m[2]! });
        }
      });
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code, out).toBe(0);
      expect(out).toMatch(expected);
    },
    30_000,
  );
});
