import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/client/index.js';
import { AskViewSchema, WebhookPayloadSchema, publicRecord, type AskRecord } from '../../src/core/schemas.js';
import { signWebhook as serverSign } from '../../src/webhooks/signing.js';

/** Every value the README, docs/integrations.md, examples/ and the SDK tests import from `askgate/client`. */
const DOCUMENTED = [
  'AskgateClient',
  'AskgateApiError',
  'AskgateConnectionError',
  'AskRequestSchema',
  'AnswerRequestSchema',
  'AskResultSchema',
  'AskRecordSchema',
  'AskViewSchema',
  'RunViewSchema',
  'HistoryEntrySchema',
  'HistoryEventSchema',
  'WebhookPayloadSchema',
  'verifyWebhook',
  'signWebhook',
  'WEBHOOK_TIMESTAMP_HEADER',
  'WEBHOOK_SIGNATURE_HEADER',
  'parseSse',
  'elicitationHandler',
  'ElicitationRefusedError',
  'assertApproved',
  'ApprovalError',
  'ApprovalRequestSchema',
  'actionHash',
];

describe('the SDK surface (askgate/client)', () => {
  it('exports every documented name, and no server helper', () => {
    for (const name of DOCUMENTED) expect([name, Object.hasOwn(sdk, name)]).toEqual([name, true]);
    for (const name of ['publicRecord', 'labelKey', 'HEADER_DISPLAY_MAX'])
      expect([name, Object.hasOwn(sdk, name)]).toEqual([name, false]);
  });

  it('takes an ask locale and time zone, checked like the server does', () => {
    const body: sdk.AskInput = {
      runId: 'r',
      questions: [{ question: 'Q?', options: [{ label: 'A' }, { label: 'B' }] }],
      locale: 'pt-br',
      timeZone: 'America/Sao_Paulo',
    };
    expect(sdk.AskRequestSchema.parse(body)).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
    expect(sdk.LocaleSchema.safeParse('en_US').success).toBe(false);
    expect(sdk.TimeZoneSchema.safeParse('Mars/Base').success).toBe(false);
  });

  it('its wire schemas are the server definitions, not copies', () => {
    expect(sdk.AskViewSchema).toBe(AskViewSchema);
    expect(sdk.WebhookPayloadSchema).toBe(WebhookPayloadSchema);
    const record = {
      id: 'a1',
      runId: 'r',
      version: 1,
      rev: 3,
      status: 'pending',
      questions: [],
      to: null,
      targets: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T01:00:00.000Z',
      timeoutSeconds: 3600,
      result: null,
      partial: {},
      deliveries: [],
      idempotencyKey: 'k',
      history: [],
    } satisfies AskRecord;
    expect(AskViewSchema.strict().parse(publicRecord(record))).toEqual(publicRecord(record));
  });

  it('verifies what the server signs, with the one signing function', () => {
    expect(sdk.signWebhook).toBe(serverSign);
    const body = '{"askId":"a1"}';
    const signature = serverSign('s3cret', 1_800_000_000, body);
    expect(sdk.verifyWebhook('s3cret', '1800000000', body, signature, 300, 1_800_000_100)).toBe(true);
    expect(sdk.verifyWebhook('s3cret', '1800000000', `${body} `, signature, 300, 1_800_000_100)).toBe(false);
    expect(sdk.verifyWebhook('s3cret', '1800000000', body, signature, 300, 1_800_000_301)).toBe(false);
  });
});
