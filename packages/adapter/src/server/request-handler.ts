import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { StreamResponse as StreamResponseJson } from '@a2a-js/sdk';
import type {
  A2ARequestHandler,
  DefaultRequestHandler,
  ExecutionEventBusManager,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { PgRelay, RelayedEvent } from '../stores/pg-relay.js';
import type { Logger } from 'pino';
import type { LangGraphAgentExecutor } from '../executor/executor.js';
import { credentialVault } from '@langgraph-a2a/stream-helpers';
import { TERMINAL_STATES, parts } from '../mapping/events.js';
import { answerOf } from '../mapping/resume.js';
import { RESERVED_PREFIX } from '../constants.js';
import { clientGoneSignal } from './call-context.js';

/**
 * What happens to a message for a context whose task is still running:
 * - `reject`: the message gets an error saying the context is busy;
 * - `enqueue`: the message waits for the running task to end, then goes on;
 * - `interrupt`: the running task is canceled, then the message goes on.
 */
export type BusyContextPolicy = 'reject' | 'enqueue' | 'interrupt';

export interface LangGraphRequestHandlerOptions {
  inner: DefaultRequestHandler;
  taskStore: TaskStore;
  executor: LangGraphAgentExecutor;
  logger: Logger;
  /** @defaultValue 'reject' */
  busyContext: BusyContextPolicy;
  /** Cancel a task whose streaming client went away before it ended. @defaultValue false */
  cancelOnDisconnect: boolean;
  eventBusManager: ExecutionEventBusManager;
  /** Live events and cancels of tasks running on other instances (PostgreSQL store). */
  relay?: PgRelay;
  /** How long a cancel relayed to another instance may take. @defaultValue 10000 */
  remoteCancelTimeoutMs?: number;
  /** Why a webhook URL is refused, or undefined when it is accepted. */
  checkWebhookUrl?: (url: string) => Promise<string | undefined>;
}

type Routed = { kind: 'send'; params: SendMessageRequest } | { kind: 'existing'; task: Task };

/**
 * The SDK's DefaultRequestHandler with the rules a LangGraph thread needs in front of it:
 * - a message without taskId for a context whose task waits for input answers that task;
 * - a retried message (same messageId) returns the task it already started;
 * - a context runs one task at a time (see {@link BusyContextPolicy}).
 */
export class LangGraphRequestHandler implements A2ARequestHandler {
  constructor(private readonly opts: LangGraphRequestHandlerOptions) {}

  private get inner(): DefaultRequestHandler {
    return this.opts.inner;
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await this.checkWebhook(params.configuration?.taskPushNotificationConfig?.url);
    const routed = await this.route(params, context);
    if (routed.kind === 'existing') return this.withHistoryLength(routed.task, params);
    return this.inner.sendMessage(routed.params, context);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    await this.checkWebhook(params.configuration?.taskPushNotificationConfig?.url);
    const routed = await this.route(params, context);
    if (routed.kind === 'existing') {
      if (TERMINAL_STATES.has(routed.task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
        yield { payload: { $case: 'task', value: this.withHistoryLength(routed.task, params) } };
        return;
      }
      yield* this.inner.resubscribe({ id: routed.task.id, tenant: params.tenant }, context);
      return;
    }
    let taskId: string | undefined;
    let ended = false;
    const gone = clientGoneSignal(context);
    const onGone = () => {
      // The run goes on when its client leaves, unless told otherwise.
      if (ended || !taskId || !this.opts.cancelOnDisconnect) return;
      this.opts.logger.info({ taskId, event: 'stream.disconnect' }, 'client left the stream; canceling its task');
      void this.inner.cancelTask({ id: taskId, tenant: params.tenant, metadata: {} }, context).catch(() => undefined);
    };
    gone?.addEventListener('abort', onGone, { once: true });
    try {
      for await (const frame of this.inner.sendMessageStream(routed.params, context)) {
        const p = frame.payload;
        if (p?.$case === 'task') taskId = p.value.id;
        if (p?.$case === 'message') ended = true;
        if (p?.$case === 'statusUpdate') {
          const state = p.value.status?.state;
          ended =
            state !== undefined &&
            (TERMINAL_STATES.has(state) ||
              state === TaskState.TASK_STATE_INPUT_REQUIRED ||
              state === TaskState.TASK_STATE_AUTH_REQUIRED);
        }
        yield frame;
      }
    } finally {
      gone?.removeEventListener('abort', onGone);
    }
  }

  private async checkWebhook(url: string | undefined): Promise<void> {
    if (!url || !this.opts.checkWebhookUrl) return;
    const refused = await this.opts.checkWebhookUrl(url);
    if (refused) throw new RequestMalformedError(`Push notification URL refused: ${refused}`);
  }

  private async route(params: SendMessageRequest, context: ServerCallContext): Promise<Routed> {
    const message = params.message;
    if (!message?.messageId) return { kind: 'send', params };

    const seenTaskId = await this.opts.executor.taskForMessage(message.messageId);
    if (seenTaskId) {
      const task = await this.opts.taskStore.load(seenTaskId, context);
      if (task) return { kind: 'existing', task };
    }

    let taskId = message.taskId;
    const contextId = message.contextId;
    if (!taskId && contextId) {
      taskId = (await this.waitingTaskIn(contextId, params, context)) ?? '';
    }
    if (contextId || taskId) {
      const resolvedContext =
        contextId || (taskId ? (await this.opts.taskStore.load(taskId, context))?.contextId : undefined);
      if (resolvedContext) await this.applyBusyPolicy(resolvedContext, params, context);
      // The running task may have ended waiting for input meanwhile.
      if (!message.taskId && contextId && !taskId)
        taskId = (await this.waitingTaskIn(contextId, params, context)) ?? '';
    }
    let routedMessage: Message = taskId === message.taskId ? message : { ...message, taskId: taskId ?? '' };
    if (taskId) {
      const target = await this.opts.taskStore.load(taskId, context);
      if (target?.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED)
        routedMessage = this.redactCredentials(routedMessage);
    }
    return routedMessage === message
      ? { kind: 'send', params }
      : { kind: 'send', params: { ...params, message: routedMessage } };
  }

  /**
   * An answer to `auth-required` carries credentials: they go to the in-process vault
   * and the message that reaches task history, checkpoints and logs holds only a handle.
   */
  private redactCredentials(message: Message): Message {
    const answer = answerOf(message);
    if (!answer.found) return message;
    const handle = credentialVault().put(answer.value);
    return { ...message, parts: [parts.data(handle, { [`${RESERVED_PREFIX}redacted`]: true })] };
  }

  private async waitingTaskIn(
    contextId: string,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<string | undefined> {
    for (const status of [TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]) {
      const { tasks } = await this.opts.taskStore.list(
        {
          tenant: params.tenant,
          contextId,
          status,
          pageSize: 1,
          pageToken: '',
          historyLength: 0,
          includeArtifacts: false,
          statusTimestampAfter: undefined,
        },
        context,
      );
      if (tasks[0]) return tasks[0].id;
    }
    return undefined;
  }

  private async applyBusyPolicy(
    contextId: string,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<void> {
    const running = this.opts.executor.runningTaskIn(contextId);
    if (!running) return;
    switch (this.opts.busyContext) {
      case 'reject':
        throw new UnsupportedOperationError(
          `Context ${contextId} is busy: task ${running} is still running. Wait for it to end, cancel it, or use a new context.`,
        );
      case 'enqueue':
        await this.opts.executor.whenTaskDone(running);
        return this.applyBusyPolicy(contextId, params, context);
      case 'interrupt':
        this.opts.logger.info(
          { taskId: running, contextId, event: 'context.interrupt' },
          'a new message interrupts the running task',
        );
        await this.inner
          .cancelTask({ id: running, tenant: params.tenant, metadata: {} }, context)
          .catch(() => undefined);
        await this.opts.executor.whenTaskDone(running);
        return this.applyBusyPolicy(contextId, params, context);
      default: {
        const unreachable: never = this.opts.busyContext;
        return unreachable;
      }
    }
  }

  private withHistoryLength(task: Task, params: SendMessageRequest): Task {
    const n = params.configuration?.historyLength;
    if (n === undefined) return task;
    return { ...task, history: n <= 0 ? [] : task.history.slice(-n) };
  }

  getAgentCard(): Promise<AgentCard> {
    return this.inner.getAgentCard();
  }
  getAuthenticatedExtendedAgentCard(
    params: GetExtendedAgentCardRequest,
    context: ServerCallContext,
  ): Promise<AgentCard> {
    return this.inner.getAuthenticatedExtendedAgentCard(params, context);
  }
  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.inner.getTask(params, context);
  }
  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.listTasks(params, context);
  }
  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const owner = await this.remoteOwner(params.id);
    const relay = this.opts.relay;
    if (!owner || !relay) return this.inner.cancelTask(params, context);
    // The run is on another instance: ask it to cancel, and wait for the result.
    const ended = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, this.opts.remoteCancelTimeoutMs ?? 10_000);
      const unsubscribe = relay.subscribe(params.id, (e) => {
        if (isEndingEvent(e)) done();
      });
    });
    this.opts.logger.info(
      { taskId: params.id, owner, event: 'cancel.relay' },
      'cancel sent to the instance running the task',
    );
    relay.requestCancel(params.id);
    await ended;
    const task = await this.opts.taskStore.load(params.id, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED) return this.inner.cancelTask(params, context);
    return task;
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const relay = this.opts.relay;
    if (!relay || !(await this.remoteOwner(params.id))) {
      yield* this.inner.resubscribe(params, context);
      return;
    }
    // The task runs on another instance: its events arrive through the relay. Listen
    // first, then read the snapshot, so nothing published in between is missed.
    const queue: RelayedEvent[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = relay.subscribe(params.id, (e) => {
      queue.push(e);
      wake?.();
    });
    try {
      const task = await this.opts.taskStore.load(params.id, context);
      if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
      if (TERMINAL_STATES.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
        throw new UnsupportedOperationError(`Task ${params.id} is in a terminal state and cannot be subscribed to.`);
      }
      yield { payload: { $case: 'task', value: task } };
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const e = queue.shift()!;
        if ('reload' in e) {
          const current = await this.opts.taskStore.load(params.id, context);
          if (current) yield { payload: { $case: 'task', value: current } };
          if (current && TERMINAL_STATES.has(current.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) return;
          continue;
        }
        const frame = StreamResponseJson.fromJSON(e.event);
        if (frame.payload?.$case === 'message') continue;
        yield frame;
        if (isEndingEvent(e)) return;
      }
    } finally {
      unsubscribe();
    }
  }

  /** The other instance running `taskId`, when the task runs elsewhere. */
  private async remoteOwner(taskId: string): Promise<string | undefined> {
    if (!this.opts.relay) return undefined;
    if (this.opts.executor.runningTaskIds.includes(taskId) || this.opts.eventBusManager.getByTaskId(taskId)) {
      return undefined;
    }
    const owner = await this.opts.executor.ledger.owner(taskId);
    return owner && owner !== this.opts.executor.instanceId ? owner : undefined;
  }
  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    await this.checkWebhook(params.url);
    return this.inner.createTaskPushNotificationConfig(params, context);
  }
  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.inner.getTaskPushNotificationConfig(params, context);
  }
  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.inner.listTaskPushNotificationConfigs(params, context);
  }
  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.inner.deleteTaskPushNotificationConfig(params, context);
  }
}

const ENDING_STATES = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** A relayed status update that ends the run (terminal, or waiting for input). */
function isEndingEvent(e: RelayedEvent): boolean {
  if (!('event' in e)) return false;
  const state = (e.event as { statusUpdate?: { status?: { state?: string } } })?.statusUpdate?.status?.state;
  return state !== undefined && ENDING_STATES.has(state);
}
