import type { RunningAskgate } from '../../src/main.js';

/** One single-choice question (buttons on every platform). */
export const single = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];

/** Two questions, the second multi-select: answered in parts by text replies. */
export const several = [
  { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  {
    id: 'checks',
    header: 'Checks',
    question: 'Which checks?',
    multiSelect: true,
    options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
  },
];

/** Lets in-flight follow-ups land before counting them. */
export const settle = () => new Promise((r) => setTimeout(r, 300));

/** The stored record of an ask that exists. */
export const stored = async (app: RunningAskgate, id: string) => (await app.store.get(id))!;
