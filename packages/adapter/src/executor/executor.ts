import { randomUUID } from 'node:crypto';
import { Command } from '@langchain/langgraph';
import { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  ExecutionEventBusManager,
  RequestContext,
} from '@a2a-js/sdk/server';
import { credentialVault } from '@langgraph-a2a/stream-helpers';
import type { Logger } from 'pino';
import { defaultIdsAndClock, type IdsAndClock } from '../mapping/env.js';
import { buildEnvelope, toConfigurable, toGraphInput, type FilePartMapping } from '../mapping/inbound.js';
import { GraphRun, STREAM_MODES, readStreamItem } from '../mapping/run.js';
import { eventFactory, parts } from '../mapping/events.js';
import { isWaitState, storedInterrupts } from '../mapping/interrupts.js';
import { readResume } from '../mapping/resume.js';
import { OUTBOX_CHANNEL, RESERVED_PREFIX } from '../constants.js';
import { silentLogger } from '../logger.js';
import { channelNames, type StreamableGraph } from './graph.js';
import { MemoryRunLedger, type RunLedger } from '../stores/run-ledger.js';
import { DeltaCoalescer } from './delta-coalescer.js';

export interface LangGraphAgentExecutorOptions {
  graph: StreamableGraph;
  /** @defaultValue a silent logger */
  logger?: Logger;
  /** How inbound file parts reach `state.messages`. @defaultValue 'inbox-only' */
  filePartMapping?: FilePartMapping;
  /** Ids and clock of the events. @defaultValue random UUIDs and the wall clock */
  idsAndClock?: IdsAndClock;
  /** Receives task metadata a graph sets, before the event that carries it is published. */
  onTaskMetadata?: (taskId: string, metadata: Record<string, unknown>) => void;
  /** Told when a run ends here, however it ended. */
  onRunEnded?: (taskId: string) => void;
  /** Extra `config.configurable` entries for every run (e.g. a model name). */
  configurable?: Record<string, unknown>;
  /** Recursion limit of each run. @defaultValue LangGraph's default */
  recursionLimit?: number;
  /** The bus manager of the request handler, to release the bus of a waiting task canceled here. */
  eventBusManager?: ExecutionEventBusManager;
  /** Where runs in progress and seen message ids are recorded. @defaultValue in memory */
  ledger?: RunLedger;
  /** This server instance, in the run ledger. @defaultValue a random id */
  instanceId?: string;
  /**
   * When checkpoints are written: `sync` (before the next step starts: what crash
   * recovery needs), `async` (while it runs) or `exit`. @defaultValue LangGraph's default
   */
  durability?: 'sync' | 'async' | 'exit';
  /** Sees every event published for a task (the live-event relay between instances uses it). */
  onEvent?: (taskId: string, event: AgentExecutionEvent) => void;
  /**
   * Send the token deltas that arrive within one turn of the event loop as one
   * artifact-update (see {@link DeltaCoalescer}). @defaultValue true
   */
  coalesceDeltas?: boolean;
}

interface RunningTask {
  contextId: string;
  abort: AbortController;
  done: Promise<void>;
}

/** `ServerCallContext.state` key: the run continues a task from its checkpoint (crash recovery). */
export const RECOVER_KEY = 'langgraph-a2a:recover';

/** The status message of tasks still running when the server had to stop them. */
export const SHUTDOWN_MESSAGE = 'The server shut down before the task finished.';

class ShutdownSignal extends Error {
  constructor() {
    super('server shutdown');
  }
}

/** The message shown to a client when a graph throws; the error itself goes to the log. */
export const GRAPH_FAILED_MESSAGE = 'The agent failed while processing the request.';

/**
 * Runs a compiled LangGraph graph for each A2A message and publishes what it streams
 * as A2A events. A graph that throws fails its task; it never throws out of here.
 */
export class LangGraphAgentExecutor implements AgentExecutor {
  private readonly graph: StreamableGraph;
  private readonly logger: Logger;
  private readonly env: IdsAndClock;
  private readonly channels: ReadonlySet<string>;
  private readonly running = new Map<string, RunningTask>();
  /** Tasks whose last run ended waiting for input, with their context. */
  private readonly waiting = new Map<string, string>();
  private idleWaiters: Array<() => void> = [];
  readonly ledger: RunLedger;
  readonly instanceId: string;

  constructor(private readonly options: LangGraphAgentExecutorOptions) {
    this.graph = options.graph;
    this.logger = options.logger ?? silentLogger();
    this.env = options.idsAndClock ?? defaultIdsAndClock;
    this.channels = channelNames(options.graph);
    this.ledger = options.ledger ?? new MemoryRunLedger();
    this.instanceId = options.instanceId ?? randomUUID();
    ensureForegroundCallbacks(this.logger);
  }

  /** Whether this instance is running the task's graph now. */
  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  /** Task ids whose graph is running in this process now. */
  get runningTaskIds(): string[] {
    return [...this.running.keys()];
  }

  /** The task running now in `contextId`, if one is. */
  runningTaskIn(contextId: string): string | undefined {
    for (const [taskId, r] of this.running) if (r.contextId === contextId) return taskId;
    return undefined;
  }

  /** Resolves when the run of `taskId` (if any) has ended. */
  async whenTaskDone(taskId: string): Promise<void> {
    await this.running.get(taskId)?.done;
  }

  /** The task an already-seen messageId went to. */
  taskForMessage(messageId: string): Promise<string | undefined> {
    return this.ledger.taskForMessage(messageId);
  }

  /** Records that this instance's runs are alive (see the run ledger). */
  async heartbeat(): Promise<void> {
    await this.ledger.heartbeat(this.instanceId, this.runningTaskIds);
  }

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const log = this.logger.child({ taskId: ctx.taskId, contextId: ctx.contextId });
    const abort = new AbortController();
    let markDone!: () => void;
    this.running.set(ctx.taskId, {
      contextId: ctx.contextId,
      abort,
      done: new Promise<void>((resolve) => (markDone = resolve)),
    });
    const send = (e: AgentExecutionEvent) => {
      bus.publish(e);
      this.options.onEvent?.(ctx.taskId, e);
    };
    const coalescer = (this.options.coalesceDeltas ?? true) ? new DeltaCoalescer(send) : undefined;
    const publish = (events: AgentExecutionEvent[]) => {
      if (coalescer) coalescer.publish(events);
      else for (const e of events) send(e);
    };
    const run = new GraphRun({
      ids: { taskId: ctx.taskId, contextId: ctx.contextId },
      env: this.env,
      userMessage: ctx.userMessage,
      existingTask: ctx.task,
      mayReplyWithMessage: ctx.task === undefined && this.channels.has(OUTBOX_CHANNEL),
      onTaskMetadata: (metadata) => this.options.onTaskMetadata?.(ctx.taskId, metadata),
      onDiagnostic: (message, detail) => log.warn(detail ?? {}, message),
    });
    const started = Date.now();
    try {
      await this.ledger.rememberMessage(ctx.userMessage.messageId, ctx.taskId);
      await this.ledger.start({ taskId: ctx.taskId, contextId: ctx.contextId, instanceId: this.instanceId });
      const request = { message: ctx.userMessage, task: ctx.task, metadata: ctx.request.metadata };
      let input: unknown;
      if (ctx.context.state.get(RECOVER_KEY) === true) {
        // Crash recovery: continue from the thread's last checkpoint.
        input = null;
        log.info({ event: 'run.recover' }, 'continuing the run from its last checkpoint');
      } else if (ctx.task && isWaitState(ctx.task.status?.state)) {
        // The message answers the pending interrupt(s): validate, then resume.
        const pending = storedInterrupts(ctx.task.metadata);
        const resume = readResume(ctx.userMessage, pending);
        if (!resume.ok) {
          log.info({ event: 'resume.rejected', reason: resume.reason }, 'answer rejected; the task keeps waiting');
          publish(run.stillWaiting(pending, resume.reason));
          return;
        }
        // Credentials stay in this process: the graph resumes with a handle to them.
        const values = resume.values.map(({ pending: p, value }) =>
          p?.kind === 'auth-required' && !isCredentialHandle(value)
            ? { p, value: credentialVault().put(value) }
            : { p, value },
        );
        const resumeValue =
          values.length === 1 && pending.length <= 1
            ? values[0]!.value
            : Object.fromEntries(values.map(({ p, value }) => [p!.id, value]));
        input = new Command({ resume: resumeValue });
        this.waiting.delete(ctx.taskId);
        log.info({ event: 'run.resume', interrupts: pending.map((p) => p.id) }, 'resuming the graph');
      } else {
        input = toGraphInput(request, {
          channels: this.channels,
          filePartMapping: this.options.filePartMapping ?? 'inbox-only',
        });
      }
      publish(run.start());
      log.info({ event: 'run.start' }, 'graph run started');
      const stream = await this.graph.stream(input, {
        streamMode: STREAM_MODES,
        // Without it, the tokens of a model inside a subgraph never reach the client.
        subgraphs: true,
        configurable: { ...this.options.configurable, ...toConfigurable(ctx.contextId, buildEnvelope(request)) },
        signal: abort.signal,
        ...(this.options.recursionLimit ? { recursionLimit: this.options.recursionLimit } : {}),
        ...(this.options.durability ? { durability: this.options.durability } : {}),
      });
      for await (const item of stream) {
        if (abort.signal.aborted) break;
        const read = readStreamItem(item);
        if (read) publish(run.process(read.mode, read.chunk));
      }
      if (abort.signal.aborted) {
        publish(this.abortedEvents(run, abort.signal));
        log.info({ event: 'run.canceled', ms: Date.now() - started }, 'graph run canceled');
      } else {
        publish(run.finish());
        log.info({ event: 'run.end', outcome: run.outcome, ms: Date.now() - started }, 'graph run finished');
      }
    } catch (error) {
      if (abort.signal.aborted) {
        publish(this.abortedEvents(run, abort.signal));
        log.info({ event: 'run.canceled', ms: Date.now() - started }, 'graph run canceled');
      } else {
        log.error({ event: 'run.failed', err: error, ms: Date.now() - started }, 'graph run failed');
        publish(run.fail(GRAPH_FAILED_MESSAGE));
      }
    } finally {
      coalescer?.flush();
      if (run.outcome === 'waiting') this.waiting.set(ctx.taskId, ctx.contextId);
      await this.ledger.finish(ctx.taskId).catch((err: unknown) => log.warn({ err }, 'could not clear the run record'));
      this.running.delete(ctx.taskId);
      this.options.onRunEnded?.(ctx.taskId);
      markDone();
      if (this.running.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  };

  private abortedEvents(run: GraphRun, signal: AbortSignal): AgentExecutionEvent[] {
    return signal.reason instanceof ShutdownSignal ? run.fail(SHUTDOWN_MESSAGE) : run.cancel();
  }

  /** Resolves when no graph runs in this process. */
  whenIdle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.running.get(taskId);
    if (running) {
      this.logger.info({ taskId, event: 'run.cancel' }, 'cancel requested');
      // The run loop sees the abort, stops the graph and publishes `canceled`.
      running.abort.abort(new Error('canceled'));
      return;
    }
    const contextId = this.waiting.get(taskId);
    if (contextId === undefined) return;
    // A waiting task has no run to stop: it is canceled here, and its bus released.
    this.waiting.delete(taskId);
    const events = eventFactory({ taskId, contextId }, this.env);
    bus.publish(
      events.status(TaskState.TASK_STATE_CANCELED, events.agentMessage([parts.text('The task was canceled.')])),
    );
    this.logger.info({ taskId, contextId, event: 'run.canceled' }, 'waiting task canceled');
    setImmediate(() => this.options.eventBusManager?.cleanupByTaskId(taskId));
  };

  /** Stops every running graph for shutdown: their tasks end failed with {@link SHUTDOWN_MESSAGE}. */
  abortAll(): void {
    for (const r of this.running.values()) r.abort.abort(new ShutdownSignal());
  }
}

function isCredentialHandle(value: unknown): boolean {
  return typeof value === 'object' && value !== null && `${RESERVED_PREFIX}credentials` in value;
}

/**
 * LangChain runs callback handlers in the background by default; when several
 * `graph.stream` runs overlap, runs then end before all their `messages`-mode chunks
 * arrive (DESIGN.md, "Known hazard"). Handlers must be awaited for every token of
 * every concurrent run to reach its client.
 */
function ensureForegroundCallbacks(logger: Logger): void {
  const current = process.env.LANGCHAIN_CALLBACKS_BACKGROUND;
  if (current !== undefined && current !== 'false') {
    logger.warn(
      { LANGCHAIN_CALLBACKS_BACKGROUND: current },
      'LANGCHAIN_CALLBACKS_BACKGROUND is overridden to "false": background callbacks lose streamed tokens under concurrency',
    );
  }
  process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';
}
