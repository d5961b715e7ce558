// The modals of an approval's Reject…, Request changes… and Edit… buttons (issue 36), and how their
// submissions read. A reason is one required paragraph; an edit is a text input per flat argument
// when they fit Discord's 5 components, else one paragraph of JSON. The modal's custom_id is the
// decision button's token (checked like a tap); the field ids carry how a value reads back.
import { LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';
import { NEEDS_REASON, type Decision } from '../../core/approval/decisions.js';
import { hasVisible } from '../../core/text.js';
import type { ApprovalView } from '../../core/approval/approval-view.js';
import { translate, type MessageKey } from '../../core/i18n/index.js';
import {
  MODAL_COMPONENTS_MAX,
  MODAL_DESCRIPTION_MAX,
  MODAL_LABEL_MAX,
  MODAL_TITLE_MAX,
  TEXT_INPUT_MAX,
} from './limits.js';
import { modalProblems } from './modal.js';
import { plainLine as line } from './modal-typed.js';
import type { SubmittedField } from './modal-read.js';
import { discordText } from './words.js';
// The one action hash (sha256 of RFC 8785 JSON), to type the shown arguments back exactly.

/** `custom_id` of the reason field. */
export const REASON_FIELD = 'r';
/** `custom_id` of the one JSON field of an edit whose arguments do not fit a field each. */
export const JSON_FIELD = 'j';
/** `custom_id` prefix of a flat argument's field: `as:` a string (kept as typed), `aj:` JSON (a number, true, null). */
const STRING_ARG = 'as:';
const JSON_ARG = 'aj:';
/** What the field ids of an approval modal look like (modal-memory.ts keeps only askgate's own ids). */
export const APPROVAL_FIELD = /^(?:[rj]|a[sj]:.{1,45})$/;

/** The button label of each decision, the title of its modal once its "…" is dropped. */
const LABELS: Readonly<Record<Decision, MessageKey>> = {
  approve: 'control.approve',
  reject: 'control.reject',
  request_changes: 'control.requestChanges',
  edit: 'control.edit',
};

/** A decision's button label in `locale` ("Reject…"). */
export const decisionLabel = (decision: Decision, locale: string) => translate(locale, LABELS[decision]);

/** What the modal is about, under its first label: the action and its short hash. */
const about = (view: ApprovalView) => line(`${view.action} #${view.hash}`, MODAL_DESCRIPTION_MAX);

/**
 * The modal of a decision button other than Approve, in `locale` (the person's): a required reason
 * for Reject… and Request changes…, the arguments for Edit…. Null when it does not fit Discord's
 * modal limits (an edit whose arguments are longer than a text input): the reply still works.
 */
export function decisionModal(
  view: ApprovalView,
  decision: Decision,
  customId: string,
  locale: string,
): ModalBuilder | null {
  if (decision === 'approve') return null;
  const title = line(decisionLabel(decision, locale).replace(/…$/, ''), MODAL_TITLE_MAX);
  const modal = new ModalBuilder().setCustomId(customId).setTitle(title);
  const labels = decision === 'edit' ? editLabels(view, locale) : [reasonLabel(view, decision, locale)];
  if (!labels) return null;
  modal.addLabelComponents(labels);
  try {
    return modalProblems(modal.toJSON()).length === 0 ? modal : null;
  } catch {
    return null; // a builder refused a field
  }
}

function reasonLabel(view: ApprovalView, decision: Decision, locale: string): LabelBuilder {
  const label = discordText(locale, decision === 'reject' ? 'reason' : 'changes');
  return new LabelBuilder()
    .setLabel(line(label, MODAL_LABEL_MAX))
    .setDescription(about(view))
    .setTextInputComponent(
      new TextInputBuilder()
        .setCustomId(REASON_FIELD)
        .setStyle(TextInputStyle.Paragraph)
        .setMinLength(1)
        .setMaxLength(TEXT_INPUT_MAX)
        .setRequired(true),
    );
}

/** A flat argument's key and its value as shown (`key: value`), split at the first ": ". */
function entriesOf(lines: readonly string[]): [string, string][] {
  return lines.map((l) => {
    const at = l.indexOf(': ');
    return at < 0 ? [l, ''] : [l.slice(0, at), l.slice(at + 2)];
  });
}

/** Whether a typed field value is JSON other than a string (a number, true, false, null). */
const isJsonValue = (shown: string) => {
  try {
    return typeof JSON.parse(shown) !== 'string';
  } catch {
    return false;
  }
};

/** The arguments the view shows, exactly as proposed (an edit starts from them). */
export function shownArguments(view: ApprovalView): Record<string, unknown> {
  return { ...view.arguments };
}

function editLabels(view: ApprovalView, locale: string): LabelBuilder[] | null {
  const args = shownArguments(view);
  if (!args) return null;
  const entries = view.lines ? entriesOf(view.lines) : null;
  const each =
    entries &&
    entries.length >= 1 &&
    entries.length <= MODAL_COMPONENTS_MAX &&
    entries.every(([k, v]) => k.length >= 1 && k.length <= MODAL_LABEL_MAX && v.length <= TEXT_INPUT_MAX);
  if (each) {
    return entries.map(([key, shown], i) => {
      const input = new TextInputBuilder()
        .setCustomId(`${typeof args[key] === 'string' ? STRING_ARG : JSON_ARG}${key}`)
        .setStyle(shown.length > 60 ? TextInputStyle.Paragraph : TextInputStyle.Short)
        .setMaxLength(TEXT_INPUT_MAX)
        .setRequired(false);
      if (shown !== '') input.setValue(shown);
      const label = new LabelBuilder().setLabel(key).setTextInputComponent(input);
      return i === 0 ? label.setDescription(about(view)) : label;
    });
  }
  const json = JSON.stringify(args, null, 2);
  if (json.length > TEXT_INPUT_MAX) return null;
  return [
    new LabelBuilder()
      .setLabel(line(discordText(locale, 'argumentsJson'), MODAL_LABEL_MAX))
      .setDescription(about(view))
      .setTextInputComponent(
        new TextInputBuilder()
          .setCustomId(JSON_FIELD)
          .setStyle(TextInputStyle.Paragraph)
          .setMinLength(2)
          .setMaxLength(TEXT_INPUT_MAX)
          .setRequired(true)
          .setValue(json),
      ),
  ];
}

/** What an approval modal's submission says: a reason, edited arguments, or a problem (not JSON, no reason). */
export type DecisionReading = { reason?: string; arguments?: unknown } | { problem: 'notJson' | 'noReason' };

/** Reads a submitted approval modal for `decision` (untrusted fields: only askgate's ids are read). */
export function readDecisionModal(fields: ReadonlyMap<string, SubmittedField>, decision: Decision): DecisionReading {
  const text = (id: string) => {
    const f = fields.get(id);
    return typeof f?.value === 'string' ? f.value : undefined;
  };
  if (decision !== 'edit') {
    const reason = text(REASON_FIELD);
    // Discord's client refuses an empty required field, not one of spaces: said here in this modal's words.
    if (NEEDS_REASON.has(decision) && !(reason !== undefined && hasVisible(reason))) return { problem: 'noReason' };
    return reason !== undefined ? { reason } : {};
  }
  const json = text(JSON_FIELD);
  if (json !== undefined) {
    try {
      return { arguments: JSON.parse(json) as unknown };
    } catch {
      return { problem: 'notJson' };
    }
  }
  const args: [string, unknown][] = [];
  for (const [id] of fields) {
    const value = text(id);
    if (value === undefined || !APPROVAL_FIELD.test(id)) continue;
    if (id.startsWith(STRING_ARG)) args.push([id.slice(STRING_ARG.length), value]);
    else if (id.startsWith(JSON_ARG))
      args.push([id.slice(JSON_ARG.length), isJsonValue(value) ? (JSON.parse(value) as unknown) : value]);
  }
  // fromEntries: a key like "__proto__" stays an own property.
  return { arguments: Object.fromEntries(args) };
}
