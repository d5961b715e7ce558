import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { ExtendedAgentCardNotConfiguredError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Gateway } from '../app/gateway.js';
import type { Logger } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { isTerminal } from '../core/record-state.js';
import { RunIdSchema } from '../core/schemas.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { askInput, type AskInputSettings } from './ask-input.js';
import { toA2AError, unsupported } from './errors.js';
import { finalEvents, taskEvent, taskOf } from './task-view.js';

/** Key of the request's AbortSignal in `ServerCallContext.state` (aborted when the client goes away). */
export const ABORT_SIGNAL_KEY = 'askgate.abortSignal';

/** The one push notification config of a task: its ask's `callbackUrl`. */
const PUSH_CONFIG_ID = 'callback';

/** What the handler needs. */
export interface A2AHandlerDeps extends AskInputSettings {
  gateway: Pick<Gateway, 'ask' | 'get' | 'cancel' | 'wait' | 'run' | 'isStopping'>;
  /** The card without request-specific URLs (the SDK's handlers read its capabilities). */
  card: AgentCard;
  logger: Pick<Logger, 'error'>;
  /** The longest a blocking SendMessage waits for the answer before returning the task `working`, in ms. */
  blockingWaitMs: number;
  /** One wait of a stream (it waits again until the ask ends), in ms (default 60 000). */
  streamWaitMs?: number;
  isStoreUnavailable: (error: unknown) => boolean;
}

/**
 * askgate's A2A agent: every method reads and changes asks through the gateway, so a task is
 * the ask record itself (Redis in durable mode): `GetTask` works on any replica and after a
 * restart, and nothing is kept in memory between calls. The SDK's JSON-RPC handlers (v1.0 and
 * the v0.3 compatibility one) call it with parsed requests and turn what it throws into codes.
 */
export class AskgateA2AHandler implements A2ARequestHandler {
  constructor(private readonly deps: A2AHandlerDeps) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.deps.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('askgate has no extended agent card');
  }

  /**
   * Creates the ask. Blocking (the default) waits up to `blockingWaitMs` for the answer, then
   * returns the task as it is (`working` when nobody answered yet: poll `GetTask` or subscribe);
   * `returnImmediately` returns it at once.
   */
  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return this.guard(async () => {
      const { record } = await this.open(params, context);
      const waitMs = params.configuration?.returnImmediately ? 0 : this.deps.blockingWaitMs;
      if (waitMs === 0 || isTerminal(record)) return taskOf(record);
      return taskOf(await this.deps.gateway.wait(record.id, waitMs, signalOf(context)));
    });
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const { record } = await this.guard(() => this.open(params, context));
    yield* this.follow(record, signalOf(context));
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return this.guard(async () => taskOf(await this.deps.gateway.get(checkedId(params.id))));
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    return this.guard(async () => taskOf(await this.deps.gateway.cancel(checkedId(params.id))));
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const record = await this.guard(() => this.deps.gateway.get(checkedId(params.id)));
    yield* this.follow(record, signalOf(context));
  }

  /** The asks of one context (an askgate run), newest first; a context is required. */
  async listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    if (params.contextId === '') throw unsupported('ListTasks needs a contextId (the runId of the asks)');
    return this.guard(async () => {
      const runId = RunIdSchema.safeParse(params.contextId);
      const { history } = runId.success ? await this.deps.gateway.run(runId.data, 50) : { history: [] };
      const limit = Math.min(Math.max(params.pageSize ?? 50, 1), 50);
      const tasks = history.slice(0, limit).map(taskOf);
      return { tasks, nextPageToken: '', pageSize: limit, totalSize: tasks.length };
    }).catch((error: unknown) => {
      if (error instanceof TaskNotFoundError) return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
      throw error;
    });
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw unsupported(
      'give the push notification config with the message (configuration.taskPushNotificationConfig): it becomes the ask\u2019s callbackUrl',
    );
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    const [config] = await this.pushConfigs(params.taskId);
    if (!config || params.id !== config.id) throw new TaskNotFoundError('no such push notification config');
    return config;
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return { configs: await this.pushConfigs(params.taskId), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(_params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    throw unsupported('a task\u2019s push notification config (its callbackUrl) cannot be removed');
  }

  private async open(params: SendMessageRequest, context: ServerCallContext): Promise<{ record: AskRecord }> {
    const { request, idempotency, push } = askInput(params, this.deps, context.requestedVersion);
    return this.deps.gateway.ask(request, idempotency, undefined, push);
  }

  /** Streams a task: the task now, then (once it ends) its result artifact and final status. */
  private async *follow(first: AskRecord, signal: AbortSignal | undefined): AsyncGenerator<StreamResponse> {
    yield taskEvent(first);
    let record = first;
    while (!isTerminal(record)) {
      // A shutdown or a client that left ends the stream; the task goes on (SubscribeToTask resumes it).
      if (signal?.aborted || this.deps.gateway.isStopping) return;
      record = await this.guard(() => this.deps.gateway.wait(record.id, this.deps.streamWaitMs ?? 60_000, signal));
    }
    if (!isTerminal(first)) yield* finalEvents(record);
  }

  /** The task's push config without its token or credentials (they are never read back). */
  private async pushConfigs(taskId: unknown): Promise<TaskPushNotificationConfig[]> {
    const record = await this.guard(() => this.deps.gateway.get(checkedId(taskId)));
    if (!record.callbackUrl) return [];
    return [
      {
        tenant: '',
        id: PUSH_CONFIG_ID,
        taskId: record.id,
        url: record.callbackUrl,
        // Neither the token nor credentials are ever read back: any holder of the API token may
        // read a task, and the token is what the client's receiver trusts a push by.
        token: '',
        authentication: record.push?.authorization
          ? { scheme: record.push.authorization.split(' ')[0]!, credentials: '' }
          : undefined,
      },
    ];
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toA2AError(error, this.deps.logger, this.deps.isStoreUnavailable);
    }
  }
}

/**
 * A task id from the request. The v0.3 handler passes its params on unchecked, so a number,
 * null or object arrives here too: that is invalid params, not a failure of askgate.
 */
function checkedId(id: unknown): string {
  if (typeof id !== 'string') throw new RequestMalformedError('id: must be a task id (a string)');
  if (!ASK_ID_PATTERN.test(id)) throw new TaskNotFoundError(`no task with id "${id.slice(0, 40)}"`);
  return id;
}

function signalOf(context: ServerCallContext): AbortSignal | undefined {
  const signal = context.state.get(ABORT_SIGNAL_KEY);
  return signal instanceof AbortSignal ? signal : undefined;
}
