import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from './app.js';
import { client } from './http.js';
import { RecordingChannel } from './test-channel.js';

/** The question the MCP tests ask (the recommended option first, as the tool description teaches). */
export const DEPLOY_QUESTION = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
};

/** askgate for MCP tests: `token` set, default target `test:chat-1` (a recording channel), plus `env`. */
export async function startMcpTestApp(
  token: string,
  env: Record<string, string>,
): Promise<{ app: RunningAskgate; api: ReturnType<typeof client> }> {
  const app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: token, ASKGATE_DEFAULT_TO: 'test:chat-1', ...env }), [
    new RecordingChannel('test'),
  ]);
  return { app, api: client(app.url, token) };
}
