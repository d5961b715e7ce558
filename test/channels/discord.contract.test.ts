import { channelContract, type ChannelHarness } from '../contracts/channel.contract.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import { user } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { waitFor } from '../helpers/wait.js';

const quiet = { info() {}, warn() {}, error() {} };

channelContract('discord', async (): Promise<ChannelHarness> => {
  const fake = await FakeDiscord.start();
  const chat = fake.addTextChannel();
  const refused = fake.addTextChannel();
  fake.failNext('POST', new RegExp(`^/channels/${refused}/messages$`), 403, 50001, 'Missing Access', 100);
  const alice = user('222222222222222222', 'alice', 'Alice');
  const users = new Map([[alice.id, alice]]);
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  return {
    channel,
    target: { channel: 'discord', chat },
    forbiddenTarget: { channel: 'discord', chat: refused },
    userId: alice.id,
    async message(ref) {
      const m = fake.messages.get(ref.messageId)!;
      const buttons = (m.components as { components: { label: string; custom_id: string }[] }[]).flatMap((row) =>
        row.components.map((b) => ({ label: b.label, data: b.custom_id })),
      );
      return { text: visibleText(m.content), buttons };
    },
    async tap(ref, data, userId) {
      const interaction = fake.tap(ref.messageId, data, users.get(userId)!);
      await waitFor(() => interaction.followUps.length > 0);
      return visibleText(interaction.followUps[0]!.content);
    },
    async reply(ref, text, userId) {
      fake.say(ref.chat, users.get(userId)!, text, { replyTo: ref.messageId });
    },
    rateLimitNextSend(seconds) {
      fake.rateLimitNext('POST', /^\/channels\/\d+\/messages$/, seconds);
    },
    close: () => fake.close(),
  };
});
