import type { AskRecord, Question } from './schemas.js';

/** One numbered option as shown in a message body. */
export interface OptionView {
  /** 1-based number the human can type. */
  number: number;
  label: string;
  description?: string;
}

/** One question as shown in a message body. */
export interface QuestionView {
  /** 1-based position. */
  number: number;
  id: string;
  /** Header shortened to at most 12 characters for display, when the question has one. */
  header?: string;
  question: string;
  multiSelect: boolean;
  options: OptionView[];
}

/** A native button: `token` is the opaque callback data (see core/token.ts). */
export interface ButtonView {
  kind: 'option' | 'other' | 'skip';
  label: string;
  token: string;
}

/** Channel-neutral view of a prompt; each channel's render.ts turns it into a message. */
export interface PromptView {
  askId: string;
  version: number;
  questions: QuestionView[];
  /** Buttons only for a single single-choice question; null means plain text. */
  buttons: ButtonView[] | null;
  /** One line telling the human how to answer. */
  instructions: string;
}

/** The outcome line a finalized message shows. */
export interface OutcomeView {
  status: 'answered' | 'no_answer';
  /** e.g. "Answered: Staging — by @alice", "Expired — no answer", "Cancelled". */
  text: string;
}

/** Builds the view of a pending ask. */
export function buildPromptView(record: Pick<AskRecord, 'id' | 'version' | 'questions'>): PromptView {
  throw new Error(`prompt view pending for ${record.id}`);
}

/** The follow-up prompt asking for the questions still unanswered after a partial reply. */
export function partialPrompt(questions: readonly Question[], missing: readonly string[]): string {
  throw new Error(`partial prompt pending ${questions.length} ${missing.length}`);
}

/** The outcome of a terminal record, as shown in the edited message. */
export function outcomeView(record: AskRecord): OutcomeView {
  throw new Error(`outcome view pending ${record.id}`);
}
