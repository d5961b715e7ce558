// The WhatsApp channel's parts without a network: its settings, how a prompt is drawn, how Graph
// errors map, the webhook's signature and what it reads of a delivery.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-values.js';
import { ENGLISH } from '../../src/core/i18n/index.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { WHATSAPP_CAPABILITIES } from '../../src/channels/whatsapp/capabilities.js';
import { DEFAULT_API_ROOT } from '../../src/channels/whatsapp/descriptor.js';
import { graphError } from '../../src/channels/whatsapp/graph-api.js';
import { renderPrompt } from '../../src/channels/whatsapp/render.js';
import { failureReason, readDelivery, signatureCheck, WebhookBody } from '../../src/channels/whatsapp/webhook.js';
import { invalidMessage } from '../fakes/whatsapp-api.js';
import { askRecord } from '../helpers/records.js';

const FULL = {
  WHATSAPP_ACCESS_TOKEN: 'EAAG-token',
  WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
  WHATSAPP_APP_SECRET: 'secret',
  WHATSAPP_VERIFY_TOKEN: 'verify',
};

describe('WhatsApp settings', () => {
  it('is off unless WHATSAPP_ACCESS_TOKEN is set; the API root defaults to the Graph API with its version', () => {
    expect(loadConfig({}).channels.whatsapp).toBeUndefined();
    expect(loadConfig({ WHATSAPP_APP_SECRET: 'x' }).channels.whatsapp).toBeUndefined();
    expect(loadConfig(FULL).channels.whatsapp).toEqual({
      accessToken: 'EAAG-token',
      phoneNumberId: '106540352242922',
      appSecret: 'secret',
      verifyToken: 'verify',
      apiRoot: DEFAULT_API_ROOT,
    });
    expect(DEFAULT_API_ROOT).toBe('https://graph.facebook.com/v23.0');
    expect(loadConfig({ ...FULL, WHATSAPP_API_ROOT: 'http://127.0.0.1:9/v23.0/' }).channels.whatsapp?.apiRoot).toBe(
      'http://127.0.0.1:9/v23.0',
    );
  });

  it.each(['WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN'])(
    'a missing %s is a startup error naming it',
    (name) => {
      const env: Record<string, string> = { ...FULL };
      delete env[name];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    },
  );

  it('checks the phone number id, the API root and the template (name:language)', () => {
    expect(() => loadConfig({ ...FULL, WHATSAPP_PHONE_NUMBER_ID: '+1555' })).toThrow(/WHATSAPP_PHONE_NUMBER_ID/);
    expect(() => loadConfig({ ...FULL, WHATSAPP_API_ROOT: 'ftp://x' })).toThrow(/WHATSAPP_API_ROOT/);
    expect(() => loadConfig({ ...FULL, WHATSAPP_TEMPLATE: 'no language' })).toThrow(/WHATSAPP_TEMPLATE/);
    expect(loadConfig({ ...FULL, WHATSAPP_TEMPLATE: 'askgate_question:en_US' }).channels.whatsapp).toMatchObject({
      template: 'askgate_question:en_US',
    });
  });
});

const view = (labels: string[], extra: object = {}) =>
  buildPromptView(
    askRecord([{ id: 'q', question: 'Which?', options: labels.map((label) => ({ label })), ...extra }] as never, {
      id: 'AbCdEfGhIjKlMn',
      version: 1,
    }),
    ENGLISH,
    WHATSAPP_CAPABILITIES,
  );

describe('WhatsApp prompts', () => {
  it('options plus Skip within three buttons of ≤ 20 characters are reply buttons; Other is never a button', () => {
    const m = renderPrompt(view(['Yes', 'No'])) as any;
    expect(m.interactive.type).toBe('button');
    expect(m.interactive.action.buttons.map((b: any) => b.reply.title)).toEqual(['Yes', 'No', 'Skip']);
    expect(invalidMessage({ messaging_product: 'whatsapp', to: '15551234567', ...m }, new Set())).toBeNull();
  });

  it('a title over 20 characters or a fourth button makes a list (titles ≤ 24, descriptions ≤ 72)', () => {
    const long = renderPrompt(view(['Yes', 'A label of twenty-one'])) as any;
    expect(long.interactive.type).toBe('list');
    const many = renderPrompt(
      view(['One', 'Two', 'Three', 'A title well over twenty-four characters'], {
        options: ['One', 'Two', 'Three', 'A title well over twenty-four characters'].map((label) => ({
          label,
          description: 'd'.repeat(100),
        })),
      }),
    ) as any;
    const rows = many.interactive.action.sections[0].rows;
    expect(rows).toHaveLength(5);
    expect(rows.every((r: any) => [...r.title].length <= 24)).toBe(true);
    expect(rows[0].description.length).toBeLessThanOrEqual(72);
    expect(invalidMessage({ messaging_product: 'whatsapp', to: '15551234567', ...many }, new Set())).toBeNull();
  });

  it('what a control cannot show whole is in the body: descriptions beside buttons, labels and descriptions cut in rows', () => {
    const described = renderPrompt(
      view([], { options: [{ label: 'Yes', description: 'ship it now' }, { label: 'No' }] }),
    ) as any;
    expect(described.interactive.type).toBe('button');
    expect(described.interactive.body.text).toContain('1. Yes — ship it now');
    const plain = renderPrompt(view(['Yes', 'No'])) as any;
    expect(plain.interactive.body.text).not.toContain('1. Yes');
    const long = 'A title well over twenty-four characters';
    const cut = renderPrompt(view(['One', 'Two', 'Three', long])) as any;
    expect(cut.interactive.type).toBe('list');
    expect(cut.interactive.body.text).toContain(`4. ${long}`);
    const fits = renderPrompt(view(['One', 'Two', 'Three', 'Four'])) as any;
    expect(fits.interactive.body.text).not.toContain('4. Four');
    const tooLong = renderPrompt(
      view([], {
        question: 'Why? '.repeat(150),
        options: [{ label: 'Yes', description: 'd'.repeat(400) }, { label: 'No' }],
      }),
    ) as any;
    expect(tooLong.type).toBe('text');
    expect(tooLong.text.body).toContain('d'.repeat(400));
  });

  it('a prompt over the interactive body limit (1,024) is text with numbered options, not cut', () => {
    const m = renderPrompt(view(['Yes', 'No'], { question: 'Why? '.repeat(250) })) as any;
    expect(m.type).toBe('text');
    expect(m.text.body).toContain('2. No');
    expect(m.text.body.length).toBeGreaterThan(1024);
  });

  it('more than ten rows, several questions and typed questions are text with the options numbered', () => {
    const labels = Array.from({ length: 10 }, (_, i) => `Option ${i + 1}`);
    const m = renderPrompt(view(labels)) as any;
    expect(m.type).toBe('text');
    expect(m.text.body).toContain('10. Option 10');
    const typed = buildPromptView(
      askRecord([{ id: 'n', question: 'How many?', kind: 'number' }] as never, { id: 'AbCdEfGhIjKlMn', version: 1 }),
      ENGLISH,
      WHATSAPP_CAPABILITIES,
    );
    expect((renderPrompt(typed) as any).type).toBe('text');
  });
});

describe('WhatsApp errors and webhooks', () => {
  it('maps Graph errors: rate limits retried after their wait, 131047 permanent window_closed, 4xx permanent, 5xx retried', () => {
    expect(graphError(429, '3', { code: 130429 })).toMatchObject({ permanent: false, retryAfterMs: 3000 });
    expect(graphError(400, null, { code: 131056 })).toMatchObject({ permanent: false, retryAfterMs: 6000 });
    expect(graphError(400, null, { code: 80007 })).toMatchObject({ permanent: false, retryAfterMs: 5000 });
    const closed = graphError(400, null, { code: 131047 });
    expect([closed.permanent, closed.message.startsWith('window_closed')]).toEqual([true, true]);
    expect(graphError(400, null, { code: 100 }).permanent).toBe(true);
    expect(graphError(401, null, { code: 190 }).permanent).toBe(true);
    expect(graphError(503, null, {}).permanent).toBe(false);
  });

  it('checks the signature over the raw body: missing, malformed, forged, right', () => {
    const raw = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
    const sig = (secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const check = (header?: string) =>
      signatureCheck({ headers: header ? { 'x-hub-signature-256': header } : {}, rawBody: raw }, 'secret');
    expect([check(), check('sha256=zz'), check(sig('other')), check(sig('secret'))]).toEqual([
      'missing',
      'missing',
      'forged',
      'ok',
    ]);
    expect(check(sig('secret').toUpperCase().replace('SHA256', 'sha256'))).toBe('ok');
  });

  it('reads messages for its own phone number id only, and statuses with the recipient and why one failed', () => {
    const body = WebhookBody.parse({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '1' },
                contacts: [{ wa_id: '15551234567', profile: { name: 'Alice' } }],
                messages: [
                  { id: 'm1', from: '15551234567', type: 'text', text: { body: 'hi' } },
                  { id: 'm2', from: '15551234567', type: 'image', image: {} },
                  { id: 'm3', from: 'bad', type: 'text', text: { body: 'x' } },
                ],
                statuses: [
                  { id: 's1', status: 'failed', recipient_id: '15551234567', errors: [{ code: 131047 }] },
                  { id: 's2', status: 'read', recipient_id: '15551234567' },
                  {
                    id: 's3',
                    status: 'failed',
                    recipient_id: '15551234567',
                    errors: [{ code: 131026, title: 'Message undeliverable' }],
                  },
                  { id: 's4', status: 'deleted', recipient_id: '15551234567' },
                  { id: 's5', status: 'delivered', recipient_id: 'not-a-number' },
                  { id: 's6', status: 'failed', recipient_id: '15551234567' },
                ],
              },
            },
            { field: 'messages', value: { metadata: { phone_number_id: '2' }, messages: [{ id: 'x' }] } },
          ],
        },
      ],
    });
    expect(readDelivery(body, '1')).toEqual({
      messages: [{ id: 'm1', chat: '+15551234567', name: 'Alice', kind: 'text', text: 'hi' }],
      statuses: [
        { messageId: 's1', chat: '+15551234567', status: 'failed', reason: 'window_closed' },
        { messageId: 's2', chat: '+15551234567', status: 'read' },
        { messageId: 's3', chat: '+15551234567', status: 'failed', reason: 'error 131026: Message undeliverable' },
        { messageId: 's5', status: 'delivered' },
        { messageId: 's6', chat: '+15551234567', status: 'failed', reason: 'failed' },
      ],
    });
  });

  it.each<[string, { code?: number; title?: string }[], string]>([
    [
      '131047 anywhere: window_closed',
      [{ code: 1 }, { code: 131047, title: 'Re-engagement message' }],
      'window_closed',
    ],
    [
      'the first error’s code and title',
      [{ code: 131026, title: 'Message undeliverable' }],
      'error 131026: Message undeliverable',
    ],
    ['a code without a title', [{ code: 131000 }], 'error 131000'],
    ['a title that is not printable ASCII is left out', [{ code: 131000, title: 'über\nline' }], 'error 131000'],
    ['a long title is cut to 80 characters', [{ code: 1, title: 'x'.repeat(200) }], `error 1: ${'x'.repeat(70)}…`],
    ['no errors', [], 'failed'],
  ])('a failed status’s reason: %s', (_name, errors, reason) => {
    expect(failureReason(errors)).toBe(reason);
    expect(failureReason(errors).length).toBeLessThanOrEqual(80);
  });
});
