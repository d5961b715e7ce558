import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestApprovalInputShape, toApprovalInput } from '../../src/mcp/approval-tool.js';

const args = z.object(RequestApprovalInputShape);

describe('request_approval arguments', () => {
  it('names the person who asked for the action, so their own decision is refused', () => {
    const parsed = args.parse({
      action: 'send_email',
      arguments: { to: 'x@example.com' },
      requestedBy: { channel: 'slack', userId: 'U1' },
    });
    expect(toApprovalInput(parsed, { runId: 'r1' }).approval).toEqual({
      action: 'send_email',
      arguments: { to: 'x@example.com' },
      requestedBy: { channel: 'slack', userId: 'U1' },
    });
  });

  it('refuses a requester without a user id', () => {
    expect(args.safeParse({ action: 'a', arguments: {}, requestedBy: { channel: 'slack' } }).success).toBe(false);
  });
});
