import type { SlackInboundDeps } from './inbound.js';
import { escapeMrkdwn } from './render.js';
import { describeError } from './limits.js';

/** Shows `text` to one person only (chat.postEphemeral), mrkdwn escaped; a failure is logged, never thrown. */
export async function ephemeral(
  deps: SlackInboundDeps,
  channel: string,
  user: string,
  text: string,
  threadTs?: string,
): Promise<void> {
  try {
    await deps.client.chat.postEphemeral({
      channel,
      user,
      text: escapeMrkdwn(text),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  } catch (error) {
    deps.logger.warn({ channel: 'slack', err: describeError(error) }, 'slack ephemeral notice failed');
  }
}

/** Posts `text` in the thread (or the conversation), mrkdwn escaped; a failure is logged, never thrown. */
export async function inThread(
  deps: SlackInboundDeps,
  channel: string,
  text: string,
  threadTs?: string,
): Promise<void> {
  try {
    await deps.client.chat.postMessage({
      channel,
      text: escapeMrkdwn(text),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  } catch (error) {
    deps.logger.warn({ channel: 'slack', err: describeError(error) }, 'slack thread notice failed');
  }
}
