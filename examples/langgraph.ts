/**
 * LangGraph with askgate (`askgate/langgraph`): a node asks a person with `askPerson()` (it calls
 * LangGraph's `interrupt()`), and `runWithAskgate()` runs the graph, asks at each interrupt and
 * resumes the thread with `new Command({resume})`. The checkpointer (here `MemorySaver`) keeps the
 * paused thread; the thread id is the askgate run id.
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   cd examples && npx tsx langgraph.ts
 * Each ask prints a curl command that answers it, or answer in the chat with ASKGATE_DEFAULT_TO set.
 *
 * On resume LangGraph re-runs the interrupted node from its start, so work before `askPerson()`
 * must be safe to repeat. A runner that crashed continues the thread with
 * `runWithAskgate(client, graph, null, {threadId})`: the same interrupts get the same asks back.
 *
 * In your project (`npm i askgate @langchain/langgraph @langchain/core`):
 *   import { AskgateClient } from 'askgate/client';
 *   import { askPerson, runWithAskgate } from 'askgate/langgraph';
 */
import { pathToFileURL } from 'node:url';
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { AskgateClient, type AskView } from '../src/client/index.js';
import { askPerson, runWithAskgate } from '../src/adapters/langgraph.js';

const Release = Annotation.Root({
  version: Annotation<string>(),
  target: Annotation<string>(),
  checks: Annotation<string[]>(),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

/** A two-node release graph: pick a target, then the checks; no answer falls back to the safe choice. */
export function releaseGraph() {
  return new StateGraph(Release)
    .addNode('choose_target', (state) => {
      const answer = askPerson([
        {
          id: 'target',
          header: 'Deploy',
          question: `Where should ${state.version} go first?`,
          options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
        },
      ]);
      const target = answer.status === 'answered' ? answer.answers.target![0]! : 'Staging (Recommended)';
      return {
        target,
        log: [`target: ${target}${answer.status === 'no_answer' ? ` (assumed: ${answer.reason})` : ''}`],
      };
    })
    .addNode('choose_checks', (state) => {
      const answer = askPerson([
        {
          id: 'checks',
          header: 'Checks',
          question: `Which checks before ${state.target}?`,
          multiSelect: true,
          options: [{ label: 'smoke' }, { label: 'load' }, { label: 'security' }],
        },
      ]);
      const checks = answer.status === 'answered' ? answer.answers.checks! : ['smoke'];
      return { checks, log: [`checks: ${checks.join(', ')}`] };
    })
    .addEdge(START, 'choose_target')
    .addEdge('choose_target', 'choose_checks')
    .addEdge('choose_checks', END)
    .compile({ checkpointer: new MemorySaver() });
}

/** The demo: run the release graph, answering each interrupt through askgate. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const onCreated = (ask: AskView) => {
    const q = ask.questions[0]!;
    console.log(
      `Interrupted: ${q.question} (ask ${ask.id}). Answer it in the chat, or:\n` +
        `  curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d '{"answers": {"${q.id}": ["${'options' in q ? q.options[0]!.label : 'your answer'}"]}}'`,
    );
  };
  const client = new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN });
  const final = await runWithAskgate(
    client,
    releaseGraph(),
    { version: 'v2.3' },
    {
      threadId: `langgraph-demo-${Date.now()}`,
      ...(to ? { to } : {}),
      timeoutSeconds: 300,
      onCreated,
    },
  );
  console.log((final as { log: string[] }).log.join('\n'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));
