// INTERIM, until cards.ts / card-actions.ts / capabilities.ts (written on their own branch) are
// merged: a minimal Adaptive Card per prompt (its text, one Action.Execute per button), the
// outcome card, and the reading of an `adaptiveCard/action` invoke's `value.action`. Deleted at the merge.
import type { ChannelCapabilities } from '../../core/capabilities.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';

/** Interim capabilities: buttons (Action.Execute), no forms (several questions and typed ones are answered by reply). */
export const INTERIM_CAPABILITIES: ChannelCapabilities = {
  kinds: ['choice'],
  buttons: { max: 6, perRow: 6, labelMax: 60, tokenMaxBytes: 64 },
  forms: null,
  edits: true,
  codeBlocks: false,
  links: true,
};

type Card = Record<string, unknown>;
const card = (body: unknown[], extra: Card = {}): Card => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: '1.5',
  body,
  ...extra,
});
const text = (value: string, extra: Card = {}) => ({ type: 'TextBlock', text: value, wrap: true, ...extra });

function promptLines(view: PromptView): string[] {
  const lines = view.questions.map((q) => q.question);
  if (view.tally) lines.push(...view.tally);
  lines.push(view.instructions);
  return lines;
}

/** The prompt with its buttons; `users`: who gets the live card on refresh. */
export function interimPromptCard(view: PromptView, options: { users?: readonly string[] } = {}): Card {
  const refreshToken = view.buttons?.[0]?.token ?? view.form?.open;
  return card(
    promptLines(view).map((l) => text(l)),
    {
      actions: (view.buttons ?? []).map((b) => ({
        type: 'Action.Execute',
        title: b.label,
        verb: 'tap',
        data: { token: b.token },
      })),
      ...(options.users && refreshToken
        ? {
            refresh: {
              action: { type: 'Action.Execute', verb: 'refresh', data: { token: refreshToken } },
              userIds: options.users,
            },
          }
        : {}),
    },
  );
}

/** The outcome in place of the prompt (no actions). */
export function interimOutcomeCard(outcome: OutcomeView, view: PromptView): Card {
  return card([...view.questions.map((q) => text(q.question)), text(outcome.text, { weight: 'Bolder' })]);
}

/** The prompt without actions, for people it is not for. */
export function interimReadOnlyCard(view: PromptView): Card {
  return card(promptLines(view).map((l) => text(l)));
}

/** What an invoke asked for: a tap on a button, or a refresh. */
export type InterimAction = { kind: 'tap'; token: string } | { kind: 'refresh'; token: string };

/** Reads an invoke's `value.action`; null for anything else. */
export function interimReadAction(action: unknown): InterimAction | null {
  const a = action as { verb?: unknown; data?: { token?: unknown } } | null;
  const token = a?.data?.token;
  if (typeof token !== 'string' || token.length > 64) return null;
  if (a?.verb === 'tap') return { kind: 'tap', token };
  if (a?.verb === 'refresh') return { kind: 'refresh', token };
  return null;
}
