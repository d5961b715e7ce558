// The `url` kind: an absolute http(s) link (no credentials in it), kept as the URL standard writes
// it. Never echoed in outcomes.
import { z } from 'zod';
import { parseUrl } from './parse/index.js';
import { notApplicable, readingOf, typedKind } from './typed-kind.js';

/** A link question (absolute http or https). */
export interface UrlQuestion {
  readonly kind: 'url';
}

/** The url kind. */
export const url = typedKind({
  name: 'url',
  fields: { kind: z.literal('url'), ...notApplicable('url', []) },
  stored: { kind: z.literal('url') },
  refine: () => {},
  read: (_q: UrlQuestion, text) => readingOf(parseUrl(text)),
  expected: (_q, words) => ({ what: words.t('typed.what.url'), example: 'https://example.com/page' }),
  apiForm: () => 'an absolute http(s) URL like https://example.com/page',
  shown: () => null,
  value: (value) => value,
});
