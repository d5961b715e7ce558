import { readdirSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importClosure } from '../helpers/import-graph.js';
import { CHANNELS, CHANNEL_DISPLAY_NAMES } from '../../src/channels/registry.js';
import { loadConfig } from '../../src/config.js';
import { channelDisplayName } from '../../src/core/policy-view.js';
import { wordsFor } from '../../src/core/i18n/index.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** The source files loading `entry` reads before any dynamic import runs. */
const loadsAtOnce = (entry: string) => importClosure(resolve(SRC, entry), 'static').map((f) => relative(SRC, f));

/** The package names a file imports statically (`import … from 'x'`, `import 'x'`). */
const packagesOf = (file: string) =>
  [
    ...readFileSync(resolve(SRC, file), 'utf8').matchAll(/^[ \t]*(?:import|export)\b[^'"]*?['"]([^'"./][^'"]*)['"]/gm),
  ].map((m) => m[1]!);

const SDKS = CHANNELS.flatMap((c) => c.sdks);
const isSdk = (spec: string) =>
  SDKS.some((sdk) => spec === sdk || spec.startsWith(sdk.endsWith('/') ? sdk : `${sdk}/`));

describe('the channel registry', () => {
  it('lists one descriptor per channel folder, named as its folder', () => {
    const folders = readdirSync(resolve(SRC, 'channels'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'shared')
      .map((d) => d.name);
    expect(CHANNELS.map((c) => c.name).sort()).toEqual(folders.sort());
    expect([...CHANNEL_DISPLAY_NAMES]).toEqual([
      ['telegram', 'Telegram'],
      ['slack', 'Slack'],
      ['discord', 'Discord'],
      ['email', 'Email'],
      ['whatsapp', 'WhatsApp'],
      ['teams', 'Microsoft Teams'],
    ]);
  });

  it.each(['channels/registry.ts', 'cli.ts', 'config.ts', 'mcp/tool.ts', 'a2a/card.ts'])(
    '%s loads no channel SDK and no channel adapter until a channel is built',
    (entry) => {
      const files = loadsAtOnce(entry);
      expect(files).toContain('channels/registry.ts');
      expect(
        files.filter(
          (f) =>
            f.startsWith('channels/') &&
            !/^channels\/(registry|descriptor|shared\/channel-words|\w+\/(descriptor|label-limits|capabilities|words))\.ts$/.test(
              f,
            ),
        ),
      ).toEqual([]);
      expect(
        files.flatMap((f) =>
          packagesOf(f)
            .filter(isSdk)
            .map((sdk) => `${f}: ${sdk}`),
        ),
      ).toEqual([]);
    },
  );

  it('each channel reads its own variables: the config of every platform comes from its descriptor', () => {
    const config = loadConfig({
      TELEGRAM_BOT_TOKEN: 't0k',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      DISCORD_BOT_TOKEN: 'd1',
      DISCORD_GATEWAY: 'false',
    });
    expect(Object.keys(config.channels)).toEqual(['telegram', 'slack', 'discord']);
    expect(config.channels.discord).toEqual({ token: 'd1', gateway: false });
    const env = Object.keys(Object.assign({}, ...CHANNELS.map((c) => c.env)));
    // Email's names are the (SMTP_URL, ASKGATE_EMAIL_*); it also reads the answer page's two settings.
    const own = (name: string, c: (typeof CHANNELS)[number]) =>
      name.startsWith(`${c.name.toUpperCase()}_`) || name.startsWith(`ASKGATE_${c.name.toUpperCase()}_`);
    const shared = ['SMTP_URL', 'ASKGATE_PUBLIC_URL', 'ASKGATE_LINK_SECRET'];
    expect(env.filter((name) => !shared.includes(name) && !CHANNELS.some((c) => own(name, c)))).toEqual([]);
    expect(config.channels.email).toBeUndefined(); // off unless SMTP_URL is set
  });

  it('core names a chat channel only through the words the shell gives it (the registry’s names)', () => {
    const named = wordsFor('de', null, CHANNEL_DISPLAY_NAMES);
    expect(['slack', 'discord', 'web'].map((c) => channelDisplayName(c))).toEqual(['slack', 'discord', 'the console']);
    expect(['slack', 'discord', 'web', 'teams', 'matrix'].map((c) => channelDisplayName(c, named))).toEqual([
      'Slack',
      'Discord',
      'der Konsole',
      'Microsoft Teams',
      'matrix',
    ]);
    expect(wordsFor('de', null, CHANNEL_DISPLAY_NAMES)).toBe(named);
  });
});
