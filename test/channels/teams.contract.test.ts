// The channel contract for Microsoft Teams: the real TeamsChannel against the Bot Connector fake,
// its conversation learned from a signed installation activity, taps as signed invokes and replies
// as signed messages handed straight to its `/teams/messages` route.
import { channelContract, RecordingSink, type ChannelHarness } from '../contracts/channel.contract.js';
import { TeamsChannel } from '../../src/channels/teams/teams-channel.js';
import { ServiceUrlHosts } from '../../src/channels/teams/service-urls.js';
import { unescapeMarkdown } from '../../src/channels/teams/cards-text.js';
import { MemoryChannelDirectory } from '../../src/store/channel-directory.js';
import type { InboundHttpResponse } from '../../src/core/ports.js';
import { cardAction, installed, message, person, startFakeTeams } from '../fakes/teams-connector.js';
import { executeActions } from './teams-world.js';

const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CHAT = 'a:1contract-personal-chat';
const quiet = { info() {}, warn() {}, error() {} };

/** Every text a person reads on a card: text blocks and facts (unescaped), choice titles, input labels. */
function visibleText(content: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    if ((n.type === 'TextBlock' || n.type === undefined) && typeof n.text === 'string')
      parts.push(unescapeMarkdown(n.text));
    if (typeof n.value === 'string' && n.title !== undefined)
      parts.push(unescapeMarkdown(String(n.title)), unescapeMarkdown(n.value));
    if (n.type === 'Input.ChoiceSet' || typeof n.label === 'string') parts.push(String(n.label ?? ''));
    for (const [key, value] of Object.entries(n)) if (key !== 'fallback') walk(value);
  };
  walk(content);
  return parts.join('\n');
}

channelContract('teams', async (): Promise<ChannelHarness> => {
  const fake = await startFakeTeams({ appId: APP_ID, appPassword: 'contract-password-0123', tenantId: TENANT });
  const people = { appId: APP_ID, tenantId: TENANT, serviceUrl: fake.serviceUrl };
  const alice = person('Alice', '0f5c7a1e-3b2d-4c6e-8a9f-1b2c3d4e5f60');
  const channel = new TeamsChannel({
    appId: APP_ID,
    appPassword: 'contract-password-0123',
    tenantId: TENANT,
    metadataUrl: fake.metadataUrl,
    tokenUrl: fake.tokenUrl,
    serviceUrlHosts: new ServiceUrlHosts(['127.0.0.1']),
    directory: new MemoryChannelDirectory(),
    logger: quiet,
  });
  const route = channel.routes()[0]!;
  /** Hands an activity to the channel's route as the connector would, signed. */
  const post = async (activity: object): Promise<InboundHttpResponse> =>
    route.handle({
      headers: { authorization: `Bearer ${await fake.token()}` },
      rawBody: Buffer.from(JSON.stringify(activity)),
    });
  // The app installed in the chat: the channel learns the conversation (its route needs a sink;
  // the contract's own replaces this one when it starts the channel).
  await channel.start(new RecordingSink());
  const install = await post(installed(people, CHAT, 'personal'));
  if (install.status !== 200) throw new Error(`install refused: ${install.status}`);
  const content = (id: string) => {
    const stored = fake.activities.get(id)!;
    return (stored.updates.at(-1) ?? stored.body).attachments[0].content;
  };
  return {
    channel,
    target: { channel: 'teams', chat: CHAT },
    forbiddenTarget: { channel: 'teams', chat: 'a:1never-installed-here' },
    userId: alice.aadObjectId,
    async message(ref) {
      const card = content(ref.messageId);
      const buttons = executeActions(card).map((a) => ({ label: a.title, data: String(a.data.askgate) }));
      return { text: visibleText(card), buttons };
    },
    async tap(ref, data, userId) {
      const who = userId === alice.aadObjectId ? alice : person('Someone', userId);
      const answer = await post(
        cardAction(people, who, CHAT, 'personal', ref.messageId, { verb: 'askgate', data: { askgate: data } }),
      );
      return String((answer.body as { value?: unknown }).value);
    },
    async reply(ref, text, userId) {
      const who = userId === alice.aadObjectId ? alice : person('Someone', userId);
      const r = await post(message(people, who, CHAT, 'personal', text, { replyToId: ref.messageId }));
      if (r.status !== 200) throw new Error(`reply refused: ${r.status}`);
    },
    rateLimitNextSend(seconds) {
      fake.failNext({ status: 429, retryAfter: String(seconds) });
    },
    close: () => fake.close(),
  };
});
