import { describe, expect, it } from 'vitest';
import { buildPromptView, choiceView, type PromptView, type QuestionView } from '../../src/core/prompt-view.js';
import type { Question } from '../../src/core/schemas.js';
import { renderPrompt as telegramPrompt } from '../../src/channels/telegram/render.js';
import { renderPrompt as slackPrompt } from '../../src/channels/slack/render.js';
import { formModal as slackModal } from '../../src/channels/slack/modal.js';
import { promptContent as discordContent } from '../../src/channels/discord/render.js';
import { formModal as discordModal } from '../../src/channels/discord/modal.js';
import { answersOnKeyboard } from '../../src/channels/telegram/drafts-keyboard.js';

const env: Question = {
  id: 'env',
  question: 'Where should I deploy?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const note: Question = { ...env, id: 'note', question: 'Anything to add?' };

/** The view of an ask whose second question is of a kind no renderer has a case for (the next issue's kinds). */
function viewWithUnknownKind(): PromptView {
  const view = buildPromptView({ id: 'KindFallback001', version: 1, questions: [env, note] });
  const { options: _options, multiSelect: _multi, ...base } = choiceView(view.questions[1]!)!;
  const other = { ...base, kind: 'someday' } as unknown as QuestionView;
  return { ...view, questions: [view.questions[0]!, other] };
}

describe('a question kind without a renderer case falls back to text', () => {
  const view = viewWithUnknownKind();

  it('Telegram, Slack and Discord show its question (its header and text), with the choice question beside it', () => {
    const bodies = [
      telegramPrompt(view).text,
      slackPrompt(view)
        .blocks.map((b) => JSON.stringify(b))
        .join('\n'),
      discordContent(view),
    ];
    for (const body of bodies) {
      expect(body).toContain('Anything to add?');
      expect(body).toContain('Where should I deploy?');
      expect(body).toContain('Production');
    }
  });

  it('Slack and Discord open no modal and Telegram draws no keyboard form for it: the message keeps the text form', () => {
    expect(slackModal(view, { token: 't', channel: 'C1' })).toBeNull();
    expect(discordModal(view, 'form')).toBeNull();
    expect(answersOnKeyboard(view)).toBe(false);
    // The same ask with both questions choices still has its modals.
    const choices = buildPromptView({ id: 'KindFallback001', version: 1, questions: [env, note] });
    expect(slackModal(choices, { token: 't', channel: 'C1' })).not.toBeNull();
    expect(discordModal(choices, 'form')).not.toBeNull();
    expect(answersOnKeyboard(choices)).toBe(true);
  });
});
