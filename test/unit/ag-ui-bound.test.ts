import { describe, expect, it } from 'vitest';
import { boundTo } from '../../src/adapters/ag-ui-approval.js';
import { actionHash } from '../../src/client/approval.js';
import type { AskResult } from '../../src/client/index.js';

const approval = { action: 'deploy', arguments: { service: 'billing', replicas: 3 } };
const hash = actionHash(approval.action, approval.arguments);
const answered = (decision: string, effectiveHash: string): AskResult =>
  ({
    status: 'answered',
    answers: {},
    answeredBy: { channel: 'console', userId: 'ana' },
    answeredAt: '2026-12-07T00:00:00.000Z',
    decision,
    arguments: approval.arguments,
    actionHash: hash,
    effectiveHash,
  }) as unknown as AskResult;

describe('AG-UI approvals release only the action the decision is bound to', () => {
  it.each([
    ['approve bound to this action', answered('approve', hash), true],
    [
      'approve bound to another hash',
      answered('approve', actionHash('deploy', { service: 'billing', replicas: 30 })),
      false,
    ],
    ['reject', answered('reject', hash), false],
    ['edit (AG-UI cannot carry changed arguments)', answered('edit', actionHash('deploy', { replicas: 1 })), false],
    [
      'no answer',
      { status: 'no_answer', reason: 'timeout', at: '2026-12-07T00:00:00.000Z' } as unknown as AskResult,
      false,
    ],
  ])('%s', (_name, result, released) => {
    expect(boundTo(result, approval)).toBe(released);
  });
});
