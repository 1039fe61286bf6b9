import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  ExecutionEventQueue,
  RequestContext,
  ResultManager,
  ServerCallContext,
  type ExecutionEventBusManager,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import { RECOVER_KEY, type LangGraphAgentExecutor } from '../executor/executor.js';
import { TERMINAL_STATES, eventFactory, parts } from '../mapping/events.js';
import { defaultIdsAndClock } from '../mapping/env.js';
import { isWaitState } from '../mapping/interrupts.js';
import type { RunLedger } from '../stores/run-ledger.js';

/**
 * What happens to a task whose run was cut short by a crash or a kill:
 * - `fail`: it ends `failed` with "The server restarted before the task finished.";
 * - `resume`: its graph continues from the last checkpoint and finishes.
 */
export type RecoveryPolicy = 'fail' | 'resume';

export const RESTARTED_MESSAGE = 'The server restarted before the task finished.';

export interface RecoveryDeps {
  ledger: RunLedger;
  taskStore: TaskStore;
  executor: LangGraphAgentExecutor;
  eventBusManager: ExecutionEventBusManager;
  policy: RecoveryPolicy;
  /** A run whose instance was not heard of for this long is an orphan. */
  leaseMs: number;
  logger: Logger;
  /** Told of a task settled as failed here (the relay tells subscribers on other instances). */
  onFailed?: (task: Task) => void;
}

/**
 * Settles orphaned runs: those recorded for this instance that it is not running (it was
 * restarted), and those whose instance stopped sending heartbeats. Each orphan is
 * claimed first, so two instances never settle the same task. Returns the task ids
 * settled. Recovered runs (policy `resume`) go on in the background.
 */
export async function settleOrphans(deps: RecoveryDeps): Promise<string[]> {
  const { ledger, executor } = deps;
  const orphans = await ledger.orphans(executor.instanceId, Date.now() - deps.leaseMs);
  const settled: string[] = [];
  for (const run of orphans) {
    if (executor.runningTaskIds.includes(run.taskId)) continue;
    if (!(await ledger.claim(run, executor.instanceId))) continue;
    const context = new ServerCallContext();
    const task = await deps.taskStore.load(run.taskId, context);
    const state = task?.status?.state;
    if (!task || state === undefined || TERMINAL_STATES.has(state) || isWaitState(state)) {
      await ledger.finish(run.taskId);
      continue;
    }
    const log = deps.logger.child({ taskId: task.id, contextId: task.contextId });
    settled.push(task.id);
    if (deps.policy === 'fail') {
      const failed = await failTask(task, context, deps.taskStore);
      await ledger.finish(task.id);
      deps.onFailed?.(failed);
      log.warn({ event: 'recovery.failed', fromInstance: run.instanceId }, 'task settled as failed after a restart');
    } else {
      log.warn({ event: 'recovery.resume', fromInstance: run.instanceId }, 'resuming a task after a restart');
      void resumeTask(task, deps).catch((err: unknown) => log.error({ err }, 'recovered run failed'));
    }
  }
  return settled;
}

async function failTask(task: Task, context: ServerCallContext, store: TaskStore): Promise<Task> {
  const message = eventFactory({ taskId: task.id, contextId: task.contextId }, defaultIdsAndClock).agentMessage([
    parts.text(RESTARTED_MESSAGE),
  ]);
  const failed: Task = {
    ...task,
    status: { state: TaskState.TASK_STATE_FAILED, message, timestamp: new Date().toISOString() },
    history: [...task.history, message],
  };
  await store.save(failed, context);
  return failed;
}

/** Runs the graph on from its checkpoint, with a bus so SubscribeToTask can follow it. */
async function resumeTask(task: Task, deps: RecoveryDeps): Promise<void> {
  const context = new ServerCallContext();
  context.state.set(RECOVER_KEY, true);
  const lastUserMessage = [...task.history].reverse().find((m) => m.role === Role.ROLE_USER);
  const message: Message = lastUserMessage ?? {
    messageId: crypto.randomUUID(),
    contextId: task.contextId,
    taskId: task.id,
    role: Role.ROLE_USER,
    parts: [],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
  const bus = deps.eventBusManager.createOrGetByTaskId(task.id);
  const queue = new ExecutionEventQueue(bus);
  const results = new ResultManager(deps.taskStore, context);
  results.setContext(message);
  const drained = (async () => {
    for await (const event of queue.events()) await results.processEvent(event);
  })();
  const request = new RequestContext(
    { tenant: '', message, configuration: undefined, metadata: {} },
    task.id,
    task.contextId,
    context,
    task,
  );
  try {
    await deps.executor.execute(request, bus);
    await drained;
  } finally {
    queue.stop();
    bus.finished();
    deps.eventBusManager.cleanupByTaskId(task.id);
  }
}
