/**
 * AG-UI with askgate (`askgate/ag-ui`): when an AG-UI agent ends a run on interrupts
 * (`RUN_FINISHED` with `outcome: {type: "interrupt"}`), each becomes an ask to a person and the
 * answers go back as the `resume` entries of the next run. A tool-call interrupt becomes an approval
 * ask showing the exact tool call (`approvalAsks: false` asks Approve/Reject on its message instead).
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   cd examples && npx tsx ag-ui.ts
 * With AGUI_URL set it talks to that AG-UI endpoint (`HttpAgent`); without, to a small
 * in-process agent that asks to approve sending an email. Each ask prints a curl command that
 * answers it, or answer in the chat with ASKGATE_DEFAULT_TO set.
 *
 * In your project (`npm i askgate @ag-ui/client`):
 *   import { AskgateClient } from 'askgate/client';
 *   import { runWithAskgate } from 'askgate/ag-ui';
 */
import { pathToFileURL } from 'node:url';
import { Observable } from 'rxjs';
import { AbstractAgent, EventType, HttpAgent, type BaseEvent, type RunAgentInput } from '@ag-ui/client';
import { AskgateClient, type AskView } from '../src/client/index.js';
import { runWithAskgate } from '../src/adapters/ag-ui.js';

/** A stand-in agent: proposes `send_email`, interrupts for approval, then reports what it did. */
export class EmailAgent extends AbstractAgent {
  run(input: RunAgentInput): Observable<BaseEvent> {
    const { threadId, runId } = input;
    const approval = input.resume?.[0];
    const approved = approval?.status === 'resolved' && approval.payload?.approved === true;
    const events = [
      { type: EventType.RUN_STARTED, threadId, runId },
      ...(input.resume
        ? [
            {
              type: EventType.TOOL_CALL_RESULT,
              messageId: `r-${runId}`,
              toolCallId: 'tc-1',
              content: approved ? 'sent' : 'not sent',
            },
            { type: EventType.RUN_FINISHED, threadId, runId, result: approved ? 'email sent' : 'email not sent' },
          ]
        : [
            { type: EventType.TOOL_CALL_START, toolCallId: 'tc-1', toolCallName: 'send_email' },
            {
              type: EventType.TOOL_CALL_ARGS,
              toolCallId: 'tc-1',
              delta: '{"to":"team@example.com","subject":"Release v2.3"}',
            },
            { type: EventType.TOOL_CALL_END, toolCallId: 'tc-1' },
            {
              type: EventType.RUN_FINISHED,
              threadId,
              runId,
              outcome: {
                type: 'interrupt',
                interrupts: [
                  {
                    id: 'int-email',
                    reason: 'tool_call',
                    toolCallId: 'tc-1',
                    message: "Send the email 'Release v2.3' to team@example.com?",
                    responseSchema: {
                      type: 'object',
                      properties: { approved: { type: 'boolean' } },
                      required: ['approved'],
                    },
                  },
                ],
              },
            },
          ]),
    ] as BaseEvent[];
    return new Observable((subscriber) => {
      for (const event of events) subscriber.next(event);
      subscriber.complete();
    });
  }
}

/** The demo: run the agent; each interrupt is asked through askgate and resumed. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const threadId = `agui-demo-${Date.now()}`;
  const agent = process.env.AGUI_URL
    ? new HttpAgent({ url: process.env.AGUI_URL, threadId })
    : new EmailAgent({ threadId });
  const onCreated = (ask: AskView) => {
    const curl = `curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d`;
    // A tool-call interrupt is an approval ask: the exact tool call, decided (approve, reject: why, ...).
    if (ask.approval) {
      const { action, arguments: args, actionHash } = ask.approval;
      console.log(
        `Approve ${action} ${JSON.stringify(args)} (#${actionHash.slice(7, 15)}, ask ${ask.id})? Decide in the chat, or:\n` +
          `  ${curl} '{"decision": "approve"}'`,
      );
      return;
    }
    const q = ask.questions[0]!;
    console.log(
      `Interrupted: ${q.question} (ask ${ask.id}). Answer it in the chat, or:\n` +
        `  ${curl} '{"answers": {"${q.id}": ["${'options' in q ? q.options[0]!.label : 'your answer'}"]}}'`,
    );
  };
  const client = new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN });
  const result = await runWithAskgate(client, agent, { ...(to ? { to } : {}), timeoutSeconds: 300, onCreated });
  console.log(`result: ${JSON.stringify(result.result)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));
