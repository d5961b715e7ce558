// The channel contract run against the WhatsApp channel and the Cloud API fake: taps and replies are
// signed webhook deliveries to the channel's own route, served on a local port as askgate serves it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelContract, type ChannelHarness } from '../contracts/channel.contract.js';
import { buttonReply, inboundMessage, startFakeWhatsApp, textReply } from '../fakes/whatsapp-api.js';
import { WhatsAppChannel } from '../../src/channels/whatsapp/whatsapp-channel.js';
import { until } from '../helpers/wait.js';

const quiet = { info() {}, warn() {}, error() {} };
const PHONE_ID = '106540352242922';
const APP_SECRET = 'contract-app-secret';
const ALICE_WA = '15551234567';
const REFUSED_WA = '15550009999';

/** Serves the channel's routes on a loopback port (the raw body kept for the signature, as askgate's server does). */
async function serveRoutes(channel: WhatsAppChannel): Promise<{ url: string; server: Server }> {
  const routes = channel.routes();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.find((r) => r.method === req.method && r.path === req.url?.split('?')[0]);
      if (!route) return void res.writeHead(404).end();
      void route.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) }).then((out) => {
        res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
        res.end(typeof out.body === 'string' ? out.body : JSON.stringify(out.body ?? {}));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/whatsapp/webhook`, server };
}

channelContract('whatsapp', async (): Promise<ChannelHarness> => {
  const fake = await startFakeWhatsApp({ token: 'contract-token', phoneNumberId: PHONE_ID, appSecret: APP_SECRET });
  fake.refusedNumbers.add(REFUSED_WA);
  const channel = new WhatsAppChannel({
    apiRoot: fake.apiRoot,
    phoneNumberId: PHONE_ID,
    accessToken: 'contract-token',
    appSecret: APP_SECRET,
    verifyToken: 'contract-verify',
    logger: quiet,
  });
  const { url, server } = await serveRoutes(channel);
  return {
    channel,
    target: { channel: 'whatsapp', chat: `+${ALICE_WA}` },
    forbiddenTarget: { channel: 'whatsapp', chat: `+${REFUSED_WA}` },
    userId: `+${ALICE_WA}`,
    async message(ref) {
      return fake.visible(ref.messageId) ?? { text: '', buttons: [] };
    },
    async tap(ref, data, userId) {
      const tap = inboundMessage(userId.slice(1), buttonReply(ref.messageId, data)) as { messages: { id: string }[] };
      await fake.deliver(url, tap);
      // The notice is a reply to the tap.
      const notice = await until(() => fake.sent.find((m) => m.body.context?.message_id === tap.messages[0]!.id));
      return notice.body.text.body;
    },
    async reply(ref, text, userId) {
      await fake.deliver(url, inboundMessage(userId.slice(1), textReply(text, ref.messageId)));
    },
    rateLimitNextSend(seconds) {
      fake.failNext({ status: 429, code: 130429, retryAfter: seconds });
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await fake.close();
    },
  };
});
