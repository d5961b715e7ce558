import { client } from '../../helpers/http.js';
import type { History } from './history.js';
import type { AskgateNode } from './node.js';

/**
 * The agents: one long-poll loop per ask (`GET /v1/asks/:id?wait=N`) against whichever replica
 * is up, retrying through crashes and outages, recording the first terminal result each gets
 * (a `result` event). The checker compares these with the final records.
 */
export class Agents {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  /** Results per ask, as the agent received them. */
  readonly results = new Map<string, unknown>();

  constructor(
    private readonly history: History,
    private readonly nodes: () => AskgateNode[],
    private readonly waitSeconds = 10,
  ) {}

  /** Starts waiting for `askId`, preferring `node` when it is up. */
  wait(askId: string, prefer?: AskgateNode): void {
    this.loops.push(this.loop(askId, prefer));
  }

  /** Stops every loop (their in-flight polls end with their wait). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.loops);
  }

  private async loop(askId: string, prefer?: AskgateNode): Promise<void> {
    for (let attempt = 0; attempt < 10_000 && !this.stopped; attempt++) {
      const up = this.nodes().filter((n) => n.up);
      const node = prefer?.up ? prefer : up[attempt % Math.max(1, up.length)];
      if (!node) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      try {
        const res = await client(node.url).get(`/v1/asks/${askId}?wait=${this.waitSeconds}`);
        if (res.status === 200 && res.body.status !== 'pending') {
          this.results.set(askId, res.body.result);
          this.history.observe('result', {
            askId,
            version: res.body.version,
            data: { node: node.name, result: res.body.result },
          });
          return;
        }
        if (res.status === 404) {
          this.history.observe('result', {
            askId,
            result: 404,
            data: { node: node.name, result: res.body?.error?.code ?? 'not_found' },
          });
          return;
        }
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 200));
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}
