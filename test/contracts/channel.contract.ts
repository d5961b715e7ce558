import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChannelError,
  type ButtonPressed,
  type FormOpening,
  type FormSubmitted,
  type Channel,
  type InboundOutcome,
  type InboundSink,
  type TextReceived,
} from '../../src/core/ports.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { decodeToken } from '../../src/core/token.js';
import type { MessageRef, Question, Target } from '../../src/core/schemas.js';
import { until } from '../helpers/wait.js';

/** A message as a person sees it on the platform: visible text and buttons. */
export interface VisibleMessage {
  text: string;
  buttons: { label: string; data: string }[];
}

/**
 * What each channel's test provides: the real adapter wired to a local fake of the platform,
 * and ways to act as a human on that fake.
 */
export interface ChannelHarness {
  channel: Channel;
  /** A conversation the fake knows, where the bot may post. */
  target: Target;
  /** A conversation the platform refuses (unknown chat, bot removed): sends fail permanently. */
  forbiddenTarget: Target;
  /** A user id the fake knows. */
  userId: string;
  /** The message as the platform shows it now. */
  message(ref: MessageRef): Promise<VisibleMessage>;
  /** Taps the button with `data` as `userId`; resolves with the notice the user was shown. */
  tap(ref: MessageRef, data: string, userId: string): Promise<string>;
  /** Replies to the message with `text` as `userId`. */
  reply(ref: MessageRef, text: string, userId: string): Promise<void>;
  /** The next send is answered with a 429 asking to retry after `seconds`. */
  rateLimitNextSend(seconds: number): void;
  close(): Promise<void>;
}

/** A sink that records inbound events and answers with scripted outcomes. */
export class RecordingSink implements InboundSink {
  readonly buttons: ButtonPressed[] = [];
  readonly texts: TextReceived[] = [];
  readonly opened: ButtonPressed[] = [];
  readonly forms: FormSubmitted[] = [];
  buttonOutcome: InboundOutcome = { kind: 'recorded', summary: 'Answer recorded' };
  textOutcome: InboundOutcome = { kind: 'recorded', summary: 'Answer recorded' };
  formOutcome: InboundOutcome = { kind: 'recorded', summary: 'Answer recorded' };
  /** What opening a form answers: by default the notice of {@link buttonOutcome}. */
  opening: FormOpening | null = null;

  async button(event: ButtonPressed): Promise<InboundOutcome> {
    this.buttons.push(event);
    return this.buttonOutcome;
  }

  async text(event: TextReceived): Promise<InboundOutcome> {
    this.texts.push(event);
    return this.textOutcome;
  }

  async openForm(event: ButtonPressed): Promise<FormOpening> {
    this.opened.push(event);
    return this.opening ?? this.buttonOutcome;
  }

  async submitForm(event: FormSubmitted): Promise<InboundOutcome> {
    this.forms.push(event);
    return this.formOutcome;
  }

  async bindFollowUp(): Promise<void> {}
}

const single: Question[] = [
  {
    id: 'env',
    header: 'Deployment target',
    question: 'Where should I deploy?',
    multiSelect: false,
    options: [{ label: 'Staging', description: 'safe place to try' }, { label: 'Production' }],
  },
];
const several: Question[] = [
  {
    id: 'env',
    header: 'Env',
    question: 'Where?',
    multiSelect: false,
    options: [{ label: 'Staging' }, { label: 'Production' }],
  },
  {
    id: 'checks',
    header: 'Checks',
    question: 'Which checks?',
    multiSelect: true,
    options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
  },
];
const hostile: Question[] = [
  {
    id: 'evil',
    question: 'Pick <b>one</b> & *carefully* @everyone <!channel> <@U123>',
    multiSelect: false,
    options: [
      { label: '@everyone <@&123> <!here>' },
      { label: '*_[x](http://e.vil)_* `code` &amp; </b>' },
      { label: 'שלום\u202Eevil\u200B ok' },
    ],
  },
];

let seq = 0;
const view = (questions: Question[]) =>
  buildPromptView({ id: `ContractAsk${String(++seq).padStart(4, '0')}`, version: 1, questions });

/** The contract every Channel implementation must pass, driven through its real SDK against a fake. */
export function channelContract(name: string, makeHarness: () => Promise<ChannelHarness>): void {
  describe(`Channel contract: ${name}`, () => {
    let h: ChannelHarness;
    const sink = new RecordingSink();

    beforeAll(async () => {
      h = await makeHarness();
      await h.channel.start(sink);
    });
    afterAll(async () => {
      await h?.channel.stop();
      await h?.close();
    });

    it('delivers a single single-choice question with native buttons and the full text', async () => {
      const v = view(single);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      const shown = await h.message(ref);
      for (const part of ['Where should I deploy?', 'Staging', 'safe place to try', 'Production'])
        expect(shown.text).toContain(part);
      expect(shown.buttons.map((b) => b.label)).toEqual(expect.arrayContaining(['Staging', 'Production']));
      for (const b of shown.buttons) expect(decodeToken(b.data)?.askId).toBe(v.askId);
      // Other is a button, or, where it is a typed reply (WhatsApp), the text asks for the person's own words.
      const kinds = shown.buttons.map((b) => decodeToken(b.data)?.choice.kind);
      expect(kinds.filter((k) => k === 'skip')).toHaveLength(1);
      if (kinds.includes('other')) expect(shown.buttons).toHaveLength(4);
      else {
        expect(shown.buttons).toHaveLength(3);
        expect(shown.text).toMatch(/own words/i);
      }
    });

    it('delivers several questions as readable numbered text; any buttons are form controls (issue 17)', async () => {
      const v = view(several);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      const shown = await h.message(ref);
      // Answer/Skip or a draft's controls: never the option buttons of a single question.
      for (const b of shown.buttons) {
        expect(decodeToken(b.data)?.askId).toBe(v.askId);
        expect(['option', 'other']).not.toContain(decodeToken(b.data)?.choice.kind);
      }
      for (const part of ['Where?', 'Which checks?', '1', '2', 'Staging', 'e2e', 'skip'])
        expect(shown.text).toContain(part);
    });

    it('renders hostile labels literally and the platform accepts them', async () => {
      const v = view(hostile);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      const shown = await h.message(ref);
      expect(shown.text).toContain('@everyone <@&123> <!here>');
      expect(shown.text).toContain('*_[x](http://e.vil)_* `code` &amp; </b>');
      expect(shown.text).toContain('Pick <b>one</b> & *carefully* @everyone <!channel> <@U123>');
    });

    it('passes a tap to the sink and shows the person the outcome', async () => {
      const v = view(single);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      const shown = await h.message(ref);
      sink.buttonOutcome = { kind: 'forbidden', summary: 'This question is for someone else' };
      const notice = await h.tap(ref, shown.buttons[1]!.data, h.userId);
      const event = await until(() => sink.buttons.find((b) => b.token === shown.buttons[1]!.data));
      expect(event).toMatchObject({ channel: h.channel.name, user: { channel: h.channel.name, userId: h.userId } });
      expect(notice).toContain('This question is for someone else');
    });

    it('passes a reply to the question message to the sink', async () => {
      const v = view(several);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      await h.reply(ref, '2\n1,3', h.userId);
      const event = await until(() => sink.texts.find((t) => t.text === '2\n1,3'));
      expect(event).toMatchObject({ channel: h.channel.name, replyTo: ref.messageId, user: { userId: h.userId } });
    });

    it('finalizes: the outcome replaces the buttons, and a repeated edit still succeeds', async () => {
      const v = view(single);
      const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
      if (h.channel.capabilities?.edits === false) {
        // A channel that cannot edit (capabilities.edits false) posts the outcome as a new message
        // in the question's conversation; the outbox records it finalized, so it is posted once.
        const outcome = { status: 'answered' as const, text: 'Answered: Staging — by @alice' };
        expect(h.channel.post).toBeTypeOf('function');
        const posted = await h.channel.post!(ref, outcome, v);
        expect(posted.chat).toBe(ref.chat);
        expect(posted.messageId).not.toBe(ref.messageId);
        const shown = await h.message(posted);
        expect(shown.text).toContain('Answered: Staging — by @alice');
        expect(shown.buttons).toEqual([]);
        expect((await h.message(ref)).text).toContain('Where should I deploy?');
        return;
      }
      await h.channel.finalize(ref, { status: 'answered', text: 'Answered: Staging — by @alice' }, v);
      const shown = await h.message(ref);
      expect(shown.text).toContain('Answered: Staging — by @alice');
      expect(shown.text).toContain('Where should I deploy?');
      expect(shown.buttons).toEqual([]);
      await h.channel.finalize(ref, { status: 'answered', text: 'Answered: Staging — by @alice' }, v);
    });

    it('reports a 429 as a retryable error carrying retry_after', async () => {
      h.rateLimitNextSend(7);
      const v = view(single);
      const error = await h.channel
        .deliver({ askId: v.askId, version: 1, target: h.target, view: v })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChannelError);
      expect((error as ChannelError).permanent).toBe(false);
      expect((error as ChannelError).retryAfterMs).toBeGreaterThanOrEqual(7000);
    });

    it('reports a refused conversation as a permanent error', async () => {
      const v = view(single);
      const error = await h.channel
        .deliver({ askId: v.askId, version: 1, target: h.forbiddenTarget, view: v })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChannelError);
      expect((error as ChannelError).permanent).toBe(true);
    });
  });
}
