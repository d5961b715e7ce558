// The `email` kind: an address people type or paste (a "mailto:" prefix dropped), its domain
// lower-cased. Never echoed in outcomes.
import { z } from 'zod';
import { parseEmail } from './parse/index.js';
import { notApplicable, readingOf, typedKind } from './typed-kind.js';

/** An email address question. */
export interface EmailQuestion {
  readonly kind: 'email';
}

/** The email kind. */
export const email = typedKind({
  name: 'email',
  fields: { kind: z.literal('email'), ...notApplicable('email', []) },
  stored: { kind: z.literal('email') },
  refine: () => {},
  read: (_q: EmailQuestion, text) => readingOf(parseEmail(text)),
  expected: (_q, words) => ({ what: words.t('typed.what.email'), example: 'name@example.com' }),
  apiForm: () => 'an email address like name@example.com',
  shown: () => null,
  value: (value) => value,
});
