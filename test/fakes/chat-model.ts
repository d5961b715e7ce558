// A chat model for LangChain's real `createAgent`: each call returns the next scripted reply (text
// or tool calls), given the messages the agent sent it, and records those messages so a test can
// read what the model was told (a rejection's message reaches it as a ToolMessage).
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/** One scripted reply: text, or the tool calls of one turn (batched when there are several). */
export type ScriptedTurn = string | { name: string; args: Record<string, unknown> }[];

/** A chat model that plays a script, one reply per call; past its end it says "done". */
export class ScriptedChatModel extends BaseChatModel {
  /** The messages of each call, in order. */
  readonly calls: BaseMessage[][] = [];
  private turn = 0;

  constructor(private readonly script: ScriptedTurn[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  /** createAgent binds its tools: the script already names them, so the model stays as it is. */
  bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push([...messages]);
    const step = this.script[this.turn++] ?? 'done';
    const message =
      typeof step === 'string'
        ? new AIMessage(step)
        : new AIMessage({
            content: '',
            tool_calls: step.map((c, i) => ({
              id: `call-${this.turn}-${i}`,
              name: c.name,
              args: c.args,
              type: 'tool_call',
            })),
          });
    return { generations: [{ message, text: typeof step === 'string' ? step : '' }] };
  }
}
