/**
 * The answer page's routes (issue 38): `GET /a/:token` shows an ask to the link's recipient and
 * never records anything (a scanner that fetches every link changes nothing); `POST /a/:token`
 * submits the form, with the anti-forgery value tied to the token, through the API's answer path
 * (gateway.answer: one compare-and-set, first valid answer wins, the ask's own checks, the outcome
 * edited on every channel). The token authenticates the route itself (`signature`, like a
 * platform's signed webhook); it never reaches a log: errors here are logged without the URL.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteConfig } from '../api/auth.js';
import { AskgateError } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import type { Clock, Logger } from '../core/ports.js';
import { AnswerRequestSchema, type AskRecord } from '../core/schemas.js';
import { chooseLocale, wordsFor, type ChannelNames, type Words } from '../core/i18n/index.js';
import { buildPromptView } from '../core/prompt-view.js';
import { ALL_CAPABILITIES, type ChannelCapabilities } from '../core/capabilities.js';
import { outcomeView } from '../core/outcome-view.js';
import { isTerminal, deadlineOf } from '../core/record-state.js';
import { noticeFor } from '../core/outcome-view.js';
import { isChoice } from '../core/questions/index.js';
import { formGuard, formGuardMatches, readAnswerToken, type AnswerLink } from './answer-token.js';
import { linkResponder, recipientMayAnswer } from './answer-link.js';
import { messagePage, pageDocument, PAGE_HEADERS } from './page-html.js';
import { openAskBody, type FormState } from './page-form.js';
import { pageWords, type PageKey } from './page-words.js';
import { readSubmission } from './page-submit.js';

/** What the page needs from the shell. */
export interface AnswerPageDeps {
  gateway: Pick<Gateway, 'get' | 'answer'>;
  secret: string;
  clock: Clock;
  logger: Logger;
  /** ASKGATE_DEFAULT_LOCALE: the page's language when neither the ask nor the browser names one askgate ships. */
  defaultLocale?: string;
  channelNames?: ChannelNames;
  /** True for errors meaning the store is unreachable (a 503 page). */
  isStoreUnavailable: (error: unknown) => boolean;
}

/** The largest form body taken (a form's answers, a reason and edited arguments fit many times over). */
export const PAGE_BODY_LIMIT = 64 * 1024;

/** What the page draws: every kind natively, as one form (the page is a form). */
export const PAGE_CAPABILITIES: ChannelCapabilities = { ...ALL_CAPABILITIES, buttons: null };

type Say = (key: PageKey, params?: Record<string, string>) => string;
type Page = { status: number; html: string };

/** The browser's languages, most wanted first (`Accept-Language`, weights read, at most 8 tags). */
export function browserLocales(header: string | undefined): string[] {
  return (header ?? '')
    .slice(0, 512)
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag!.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.tag !== '' && l.tag !== '*' && l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .slice(0, 8)
    .map((l) => l.tag);
}

/** Registers `GET`/`POST /a/:token` on `app`. */
export function registerAnswerPage(app: FastifyInstance, deps: AnswerPageDeps): void {
  const invalidPage = (request: FastifyRequest, status = 404): Page => {
    const lang = chooseLocale(...browserLocales(request.headers['accept-language']), deps.defaultLocale);
    const t = pageWords(lang);
    return { status, html: messagePage(lang, t('invalidTitle'), [t('invalidBody')]) };
  };
  const languageOf = (record: AskRecord, request: FastifyRequest) => {
    const locale = chooseLocale(
      record.locale,
      ...browserLocales(request.headers['accept-language']),
      deps.defaultLocale,
    );
    return { words: wordsFor(locale, record.timeZone, deps.channelNames), t: pageWords(locale) };
  };
  const send = (reply: FastifyReply, page: Page) =>
    reply.code(page.status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page.html);

  /** The token's link and its ask, or null for anything not valid (no detail is given). */
  const opened = async (request: FastifyRequest): Promise<{ link: AnswerLink; record: AskRecord } | null> => {
    const token = (request.params as { token: string }).token;
    const link = readAnswerToken(token, deps.secret, new Date(deps.clock.now()));
    if (!link) return null;
    try {
      return { link, record: await deps.gateway.get(link.askId) };
    } catch (error) {
      if (error instanceof AskgateError && error.code === 'not_found') return null;
      throw error;
    }
  };

  const outcomePage = (record: AskRecord, words: Words, t: Say, title: PageKey, status = 200, lead?: string): Page => {
    const lines = [...(lead ? [lead] : []), outcomeView(record, words).text];
    return { status, html: messagePage(words.locale, t(title), lines, 'outcome') };
  };

  const formPage = (
    request: FastifyRequest,
    link: AnswerLink,
    record: AskRecord,
    state: FormState,
    status = 200,
  ): Page => {
    const { words, t } = languageOf(record, request);
    const token = (request.params as { token: string }).token;
    const view = buildPromptView(record, words, PAGE_CAPABILITIES);
    const meta = [
      t('openUntil', { time: words.time(record.expiresAt) ?? '', left: timeLeft(record, deps.clock.now(), words) }),
    ];
    if (link.recipient !== 'anyone') meta.push(t('answeringAs', { name: link.recipient.userId }));
    if (state.option !== undefined && !state.sent) meta.push(t('sendOption'));
    const body = openAskBody({ record, view, words, t, guard: formGuard(token, deps.secret), state, meta });
    return { status, html: pageDocument(words.locale, t('title'), body) };
  };

  const notForYou = (record: AskRecord, request: FastifyRequest): Page => {
    const { words, t } = languageOf(record, request);
    const text = noticeFor(record, 'forbidden', {}, words);
    return { status: 403, html: messagePage(words.locale, t('title'), [text]) };
  };

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: PAGE_BODY_LIMIT },
      (_request, body, done) => done(null, new URLSearchParams(body as string)),
    );
    // Logged without the URL: the path holds the token.
    scope.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
        return send(reply, invalidPage(request, error.statusCode === 413 ? 413 : 400));
      const unavailable = deps.isStoreUnavailable(error);
      deps.logger[unavailable ? 'warn' : 'error']({ route: '/a/:token', err: error.message }, 'answer page failed');
      const page = invalidPage(request, unavailable ? 503 : 500);
      if (unavailable) reply.header('retry-after', '1');
      return send(reply, page);
    });
    const config = { auth: 'signature' } satisfies RouteConfig;

    scope.get('/a/:token', { config }, async (request, reply) => {
      const found = await opened(request);
      if (!found) return send(reply, invalidPage(request));
      const { link, record } = found;
      if (isTerminal(record)) {
        const { words, t } = languageOf(record, request);
        return send(reply, outcomePage(record, words, t, 'closedTitle'));
      }
      const option = linkOption(record, (request.query as Record<string, unknown>).option);
      return send(reply, formPage(request, link, record, option !== undefined ? { option } : {}));
    });

    scope.post('/a/:token', { config }, async (request, reply) => {
      const token = (request.params as { token: string }).token;
      const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      // Checked before the ask is read: a forged form learns nothing and changes nothing.
      if (!readAnswerToken(token, deps.secret, new Date(deps.clock.now()))) return send(reply, invalidPage(request));
      if (!formGuardMatches(token, form.get('guard') ?? undefined, deps.secret))
        return send(reply, invalidPage(request, 403));
      const found = await opened(request);
      if (!found) return send(reply, invalidPage(request));
      const { link, record } = found;
      const { words, t } = languageOf(record, request);
      if (isTerminal(record))
        return send(reply, outcomePage(record, words, t, 'closedTitle', 409, t('alreadyAnswered')));
      if (!recipientMayAnswer(record, link.recipient)) return send(reply, notForYou(record, request));
      const now = deps.clock.now();
      const submission = readSubmission(record, form, words, t, now);
      if (submission.kind === 'invalid') {
        const state = { sent: form, problems: submission.problems, top: submission.top };
        return send(reply, formPage(request, link, record, state, 400));
      }
      const parsed = AnswerRequestSchema.safeParse(submission.body);
      if (!parsed.success) {
        const top = parsed.error.issues.map((i) => i.message).join('; ');
        return send(reply, formPage(request, link, record, { sent: form, top }, 400));
      }
      try {
        const answered = await deps.gateway.answer(record.id, parsed.data, linkResponder(link.recipient));
        if (!isTerminal(answered))
          return send(reply, { status: 200, html: messagePage(words.locale, t('recordedTitle'), [t('counted')]) });
        return send(reply, outcomePage(answered, words, t, 'recordedTitle'));
      } catch (error) {
        if (!(error instanceof AskgateError)) throw error;
        if (error.code === 'invalid_answer') {
          const top = error.issues?.some((i) => i.path[0] === 'reason') ? t('needReason') : error.message;
          return send(reply, formPage(request, link, record, { sent: form, top }, 400));
        }
        if (error.code !== 'already_resolved' && error.code !== 'not_found') throw error;
        // Refused by the ask: it ended meanwhile (a replay, a faster answer), or not this person's.
        const now = await opened(request);
        if (!now) return send(reply, invalidPage(request));
        if (!isTerminal(now.record)) return send(reply, notForYou(now.record, request));
        return send(reply, outcomePage(now.record, words, t, 'closedTitle', 409, t('alreadyAnswered')));
      }
    });
  });
}

/** The option `?option=<n>` preselects: an option of the ask's one single choice question, else none. */
function linkOption(record: AskRecord, raw: unknown): number | undefined {
  const question = record.questions.length === 1 && !record.approval ? record.questions[0]! : undefined;
  if (!question || !isChoice(question) || question.multiSelect || typeof raw !== 'string' || !/^[1-4]$/.test(raw))
    return undefined;
  const n = Number(raw);
  return n <= question.options.length ? n : undefined;
}

/** "12 minutes" / "3 hours" left until the ask's deadline, in the locale's unit words. */
function timeLeft(record: AskRecord, now: number, words: Words): string {
  const minutes = Math.max(0, Math.ceil((deadlineOf(record) - now) / 60_000));
  const [value, unit] = minutes >= 120 ? [Math.floor(minutes / 60), 'hour'] : [minutes, 'minute'];
  return new Intl.NumberFormat(words.locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}
