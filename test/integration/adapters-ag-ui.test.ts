import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Observable } from 'rxjs';
import { AbstractAgent, EventType, type BaseEvent, type Interrupt, type RunAgentInput } from '@ag-ui/client';
import { startTestApp, testEnv } from '../helpers/app.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateClient, actionHash } from '../../src/client/index.js';
import { answerInterrupts, defaultInterruptAsk, runWithAskgate } from '../../src/adapters/ag-ui.js';
import type { RunningAskgate } from '../../src/main.js';
import { Person, closeApp } from './adapters-person.js';

// The real @ag-ui/client pipeline (AbstractAgent.runAgent: event verification, apply,
// pendingInterrupts, the resume check) over an in-process agent that emits real AG-UI 1.0
// events. A real askgate, answered through the test channel.

let app: RunningAskgate;
let sdk: AskgateClient;
const channel = new RecordingChannel('test');
let n = 0;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await closeApp(app);
});

/**
 * An agent that proposes `send_email` and ends its first run on the given interrupts; the next run
 * (with `resume`) sends the email only when approved and finishes with the resume as its result.
 */
class EmailAgent extends AbstractAgent {
  readonly inputs: RunAgentInput[] = [];
  constructor(
    private readonly interrupts: Interrupt[] | 'cancel',
    threadId: string,
  ) {
    super({ threadId });
  }

  run(input: RunAgentInput): Observable<BaseEvent> {
    this.inputs.push(input);
    const { threadId, runId } = input;
    const events: BaseEvent[] = [{ type: EventType.RUN_STARTED, threadId, runId } as BaseEvent];
    if (!input.resume) {
      events.push(
        { type: EventType.TOOL_CALL_START, toolCallId: 'tc-1', toolCallName: 'send_email' } as BaseEvent,
        { type: EventType.TOOL_CALL_ARGS, toolCallId: 'tc-1', delta: '{"to":"a@b.com"}' } as BaseEvent,
        { type: EventType.TOOL_CALL_END, toolCallId: 'tc-1' } as BaseEvent,
        this.interrupts === 'cancel'
          ? ({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' } } as BaseEvent)
          : ({
              type: EventType.RUN_FINISHED,
              threadId,
              runId,
              outcome: { type: 'interrupt', interrupts: this.interrupts },
            } as BaseEvent),
      );
    } else {
      const approval = input.resume.find((r) => r.interruptId === 'int-email');
      const approved = approval?.status === 'resolved' && approval.payload?.approved === true;
      events.push(
        {
          type: EventType.TOOL_CALL_RESULT,
          messageId: `m-${runId}`,
          toolCallId: 'tc-1',
          content: approved ? 'sent' : 'not sent',
        } as BaseEvent,
        { type: EventType.RUN_FINISHED, threadId, runId, result: { resume: input.resume } } as BaseEvent,
      );
    }
    return new Observable((subscriber) => {
      for (const event of events) subscriber.next(event);
      subscriber.complete();
    });
  }
}

const emailApproval: Interrupt = {
  id: 'int-email',
  reason: 'tool_call',
  message: "Send email to a@b.com with subject 'Hi'?",
  toolCallId: 'tc-1',
  responseSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
};

function setup(interrupts: Interrupt[] | 'cancel') {
  const chat = `agui-${++n}`;
  const agent = new EmailAgent(interrupts, `agui-thread-${n}`);
  return { agent, person: new Person(channel, sdk, chat), to: { channel: 'test', chat } };
}

describe('runWithAskgate over a real AG-UI client run', () => {
  it('approvalAsks: false: a tool-call interrupt is an Approve/Reject question; Approve resumes with {approved: true}', async () => {
    const { agent, person, to } = setup([emailApproval]);
    const [result, asked] = await Promise.all([
      runWithAskgate(sdk, agent, { to, approvalAsks: false }),
      person.tap('Approve'),
    ]);
    expect(asked.view.approval).toBeUndefined();
    expect(asked.view.questions[0]!.question).toBe("Send email to a@b.com with subject 'Hi'?");
    expect(agent.inputs).toHaveLength(2);
    const resume = agent.inputs[1]!.resume!;
    expect(resume).toEqual([
      {
        interruptId: 'int-email',
        status: 'resolved',
        payload: { approved: true },
        metadata: { askgate: { askId: asked.askId, answeredBy: expect.objectContaining({ userId: 'u-person' }) } },
      },
    ]);
    expect(agent.inputs[1]!.threadId).toBe(agent.inputs[0]!.threadId);
    expect(agent.inputs[1]!.runId).not.toBe(agent.inputs[0]!.runId);
    expect(result.newMessages).toContainEqual(expect.objectContaining({ role: 'tool', content: 'sent' }));
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('several interrupts: one ask each, in order; every kind of mapping; one resume covering all', async () => {
    const interrupts: Interrupt[] = [
      emailApproval,
      { id: 'int-confirm', reason: 'confirmation', message: 'Archive the thread afterwards?' },
      {
        id: 'int-tone',
        reason: 'input_required',
        message: 'Which tone?',
        responseSchema: { type: 'string', enum: ['formal', 'casual'] },
      },
      {
        id: 'int-questions',
        reason: 'acme:details',
        metadata: {
          askgate: {
            questions: [{ id: 'cc', question: 'Copy whom?', options: [{ label: 'Team' }, { label: 'Nobody' }] }],
          },
        },
      },
    ];
    const { agent, person, to } = setup(interrupts);
    const [, a, b, c, d] = await Promise.all([
      runWithAskgate(sdk, agent, { to }),
      person.reply('reject: wrong recipient'),
      person.tap('Yes'),
      person.tap('casual'),
      person.tap('Team'),
    ]);
    expect([a, b, c, d].map((r) => r.view.buttons!.slice(0, 2).map((x) => x.label))).toEqual([
      ['Approve', 'Reject…'],
      ['Yes', 'No'],
      ['formal', 'casual'],
      ['Team', 'Nobody'],
    ]);
    const resume = agent.inputs[1]!.resume!;
    expect(resume.map((r) => [r.interruptId, r.status, r.payload])).toEqual([
      ['int-email', 'resolved', { approved: false }],
      ['int-confirm', 'resolved', true],
      ['int-tone', 'resolved', 'casual'],
      ['int-questions', 'resolved', { answers: { cc: ['Team'] }, values: { cc: ['Team'] } }],
    ]);
  });

  it('typed response schemas and typed askgate questions: asked as typed questions, resumed with JSON values', async () => {
    const interrupts: Interrupt[] = [
      {
        id: 'int-count',
        reason: 'input_required',
        message: 'How many recipients at most?',
        responseSchema: { type: 'integer', minimum: 1, maximum: 50 },
      },
      {
        id: 'int-day',
        reason: 'input_required',
        message: 'Send on which day?',
        responseSchema: { type: 'string', format: 'date' },
      },
      {
        id: 'int-budget',
        reason: 'acme:budget',
        metadata: { askgate: { questions: [{ id: 'budget', question: 'Budget?', kind: 'number', unit: 'EUR' }] } },
      },
    ];
    const { agent, person, to } = setup(interrupts);
    const [, count, day, budget] = await Promise.all([
      runWithAskgate(sdk, agent, { to }),
      person.reply('12'),
      person.reply('2026-12-08'),
      person.reply('99.5 EUR'),
    ]);
    expect([count, day, budget].map((r) => r.view.questions[0])).toMatchObject([
      { question: 'How many recipients at most?', kind: 'number', min: 1, max: 50, integer: true },
      { question: 'Send on which day?', kind: 'date' },
      { question: 'Budget?', kind: 'number', unit: 'EUR' },
    ]);
    expect(agent.inputs[1]!.resume!.map((r) => [r.interruptId, r.status, r.payload])).toEqual([
      ['int-count', 'resolved', 12],
      ['int-day', 'resolved', '2026-12-08'],
      ['int-budget', 'resolved', { answers: { budget: ['99.5'] }, values: { budget: 99.5 } }],
    ]);
  });

  it('approvalAsks: false: a reply in the person’s own words to the question is {approved: false} with the words as a comment', async () => {
    const { agent, person, to } = setup([emailApproval]);
    await Promise.all([
      runWithAskgate(sdk, agent, { to, approvalAsks: false }),
      person.reply('send it tomorrow morning instead'),
    ]);
    expect(agent.inputs[1]!.resume![0]).toMatchObject({
      status: 'resolved',
      payload: { approved: false },
      metadata: { askgate: { comment: 'send it tomorrow morning instead' } },
    });
  });

  it('timeout and skip resume as cancelled; an interrupt past expiresAt is cancelled without asking', async () => {
    const expired: Interrupt = { ...emailApproval, id: 'int-old', expiresAt: '2020-01-01T00:00:00Z' };
    const { agent, person, to } = setup([expired, emailApproval]);
    const before = channel.delivered.length;
    await Promise.all([runWithAskgate(sdk, agent, { to, timeoutSeconds: 1 }), person.nextAsk()]);
    expect(channel.delivered.length).toBe(before + 1);
    expect(agent.inputs[1]!.resume).toEqual([
      { interruptId: 'int-old', status: 'cancelled', metadata: { askgate: { reason: 'expired' } } },
      {
        interruptId: 'int-email',
        status: 'cancelled',
        metadata: { askgate: { askId: expect.any(String), reason: 'timeout' } },
      },
    ]);

    const skipped = setup([emailApproval]);
    await Promise.all([runWithAskgate(sdk, skipped.agent, { to: skipped.to }), skipped.person.skip()]);
    expect(skipped.agent.inputs[1]!.resume![0]).toMatchObject({
      status: 'cancelled',
      metadata: { askgate: { reason: 'skipped' } },
    });
  });

  it('an expiry caps the ask’s timeout', async () => {
    const soon: Interrupt = { ...emailApproval, expiresAt: new Date(Date.now() + 60_000).toISOString() };
    const { agent, person, to } = setup([soon]);
    const [, asked] = await Promise.all([
      runWithAskgate(sdk, agent, { to, timeoutSeconds: 3600 }),
      person.tap('Approve'),
    ]);
    const view = await sdk.get(asked.askId);
    expect(view.timeoutSeconds).toBeLessThanOrEqual(60);
  });

  it('a cancelled run ends the loop without asking', async () => {
    const { agent, to } = setup('cancel');
    const before = channel.delivered.length;
    await runWithAskgate(sdk, agent, { to });
    expect(agent.inputs).toHaveLength(1);
    expect(agent.pendingInterrupts).toEqual([]);
    expect(channel.delivered.length).toBe(before);
  });

  it('aborting cancels the open ask; the thread keeps its pending interrupts', async () => {
    const { agent, person, to } = setup([emailApproval]);
    const controller = new AbortController();
    const running = runWithAskgate(sdk, agent, { to, signal: controller.signal });
    const asked = await person.nextAsk();
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect((await sdk.get(asked.askId)).result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['int-email']);
    // The client itself refuses a new run that leaves them unanswered.
    await expect(agent.runAgent()).rejects.toThrow(/pending interrupt/);
  });

  it('an interrupt with no mapping is an error before anything is asked; toAsk maps it', async () => {
    const odd: Interrupt = { id: 'int-odd', reason: 'acme:free_text', message: 'Why?' };
    const { agent, person, to } = setup([emailApproval, odd]);
    const before = channel.delivered.length;
    await expect(runWithAskgate(sdk, agent, { to })).rejects.toThrow(
      /"int-odd" \(reason "acme:free_text"\) has no askgate mapping/,
    );
    expect(channel.delivered.length).toBe(before);

    const [entries] = await Promise.all([
      answerInterrupts(sdk, [odd], {
        threadId: agent.threadId,
        to,
        toAsk: (i) =>
          i.reason === 'acme:free_text'
            ? {
                questions: [{ id: 'why', question: i.message!, options: [{ label: 'Cost' }, { label: 'Speed' }] }],
                payload: (r) => ({ why: r.answers.why![0] }),
              }
            : undefined,
      }),
      person.reply('because the CEO asked'),
    ]);
    expect(entries).toMatchObject([
      { interruptId: 'int-odd', status: 'resolved', payload: { why: 'because the CEO asked' } },
    ]);
  });

  it('hostile interrupt text is shown without control or invisible characters', () => {
    const ask = defaultInterruptAsk({ ...emailApproval, message: 'Send\u0007 \u202eemail\u200b\r\nnow?' })!;
    expect(ask.questions![0]!.question).toBe('Send email now?');
    const empty = defaultInterruptAsk({ ...emailApproval, message: '\u200b\u0000' })!;
    expect(empty.questions![0]!.question).toBe('Approve this tool call?');
    expect(
      defaultInterruptAsk({ id: 'x', reason: 'input_required', responseSchema: { type: 'string', enum: ['one'] } }),
    ).toBeUndefined();
    // A typed schema askgate cannot hold a person to has no default mapping either.
    expect(
      defaultInterruptAsk({ id: 'x', reason: 'input_required', responseSchema: { type: 'string', format: 'ipv4' } }),
    ).toBeUndefined();
    const typed = defaultInterruptAsk({
      id: 'x',
      reason: 'input_required\u202e',
      message: 'How\u0007 many?\u200b',
      responseSchema: { type: 'number' },
    })!;
    expect(typed.questions![0]).toEqual({
      id: 'answer',
      header: 'input_required',
      question: 'How many?',
      kind: 'number',
    });
  });
});

describe('approval asks for AG-UI interrupts (issue 36)', () => {
  it('by default a tool-call interrupt asks about the exact tool call of the thread; the reason reaches the agent', async () => {
    const { agent, person, to } = setup([emailApproval]);
    const [, asked] = await Promise.all([runWithAskgate(sdk, agent, { to }), person.reply('reject: wrong address')]);
    expect(asked.view.approval).toMatchObject({
      action: 'send_email',
      summary: "Send email to a@b.com with subject 'Hi'?",
      lines: ['to: a@b.com'],
      hash: actionHash('send_email', { to: 'a@b.com' }).slice(7, 15),
      decisions: ['approve', 'reject', 'request_changes'],
    });
    expect(agent.inputs[1]!.resume).toEqual([
      {
        interruptId: 'int-email',
        status: 'resolved',
        payload: { approved: false },
        metadata: {
          askgate: {
            askId: asked.askId,
            answeredBy: expect.objectContaining({ userId: 'u-person' }),
            comment: 'wrong address',
          },
        },
      },
    ]);
  });

  it('a tool-call interrupt whose call is not among the messages, or without toolCall, is the Approve/Reject question', async () => {
    const unknown: Interrupt = { ...emailApproval, toolCallId: 'tc-unknown' };
    const { agent, person, to } = setup([unknown]);
    const [, asked] = await Promise.all([runWithAskgate(sdk, agent, { to }), person.tap('Approve')]);
    expect(asked.view.approval).toBeUndefined();
    expect(agent.inputs[1]!.resume![0]).toMatchObject({ payload: { approved: true } });
    const direct = new Person(channel, sdk, `agui-${++n}`);
    const [entries, tapped] = await Promise.all([
      answerInterrupts(sdk, [emailApproval], {
        threadId: `agui-direct-${n}`,
        to: { channel: 'test', chat: direct.chat },
      }),
      direct.tap('Reject'),
    ]);
    expect(tapped.view.approval).toBeUndefined();
    expect(entries[0]).toMatchObject({ payload: { approved: false } });
  });

  it('requestedBy: the person who asked for the action cannot approve it; someone else can', async () => {
    const { agent, person, to } = setup([emailApproval]);
    const run = runWithAskgate(sdk, agent, { to, requestedBy: { channel: 'test', userId: person.user.userId } });
    const asked = await person.nextAsk();
    expect(asked.view.approval).toMatchObject({ action: 'send_email' });
    const approve = asked.view.buttons!.find((b) => b.label === 'Approve')!;
    const own = await channel.sink!.button({
      channel: 'test',
      token: approve.token,
      user: person.user,
      chat: person.chat,
    });
    expect(own).toMatchObject({ kind: 'invalid', hint: 'You requested this action: someone else must decide.' });
    expect((await sdk.get(asked.askId)).status).toBe('pending');
    await sdk.answer(asked.askId, { decision: 'approve', by: 'erin' });
    await run;
    expect(agent.inputs[1]!.resume![0]).toMatchObject({
      status: 'resolved',
      payload: { approved: true },
      metadata: { askgate: { answeredBy: expect.objectContaining({ channel: 'api', userId: 'erin' }) } },
    });
  });

  it('metadata.askgate.approval makes any interrupt an approval ask; Approve resumes with approved', async () => {
    const interrupt: Interrupt = {
      id: 'int-email',
      reason: 'acme:review',
      responseSchema: { type: 'boolean' },
      metadata: { askgate: { approval: { action: 'send_email', arguments: { to: 'a@b.com' }, preview: 'Hi!' } } },
    };
    const { agent, person, to } = setup([interrupt]);
    const [, asked] = await Promise.all([runWithAskgate(sdk, agent, { to }), person.tap('Approve')]);
    expect(asked.view.approval).toMatchObject({ action: 'send_email', preview: 'Hi!' });
    expect(agent.inputs[1]!.resume![0]).toMatchObject({ status: 'resolved', payload: true });
  });
});
