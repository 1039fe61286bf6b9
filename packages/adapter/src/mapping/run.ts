import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { HelperEvent } from '@langgraph-a2a/stream-helpers';
import { STREAM_DELTA_ARTIFACT_ID, STREAMED_AS_KEY } from '../constants.js';
import { filePart, mapCustomChunk } from './custom-mode.js';
import type { IdsAndClock } from './env.js';
import { TERMINAL_STATES, eventFactory, parts, type EventFactory, type RunIds } from './events.js';
import { mapMessagesChunk } from './messages-mode.js';
import { finalAnswer } from './outbound.js';
import {
  INTERRUPTS_KEY,
  describeInterrupt,
  readInterrupts,
  waitState,
  waitingParts,
  type PendingInterrupt,
} from './interrupts.js';
import type { OutboxMessage } from './outbox.js';
import { StreamDeltaArtifact } from './stream-delta.js';

export type StreamModeName = 'values' | 'messages' | 'custom' | 'updates';
export const STREAM_MODES: StreamModeName[] = ['values', 'messages', 'custom', 'updates'];

/** One item of `graph.stream(input, { streamMode: [...], subgraphs: true })`. */
export interface StreamItem {
  /** Where the chunk comes from: empty for the graph itself, `["node:<id>", …]` inside subgraphs. */
  namespace: string[];
  mode: StreamModeName;
  chunk: unknown;
}

/**
 * Reads a stream item with or without its namespace (`[ns, mode, chunk]` or `[mode, chunk]`).
 * Returns undefined for what the run must not see: a subgraph's own `values` and `updates`
 * are its state, not the task's (its interrupts reach the parent's stream too), while its
 * model tokens and helper events are the run's output, wherever they come from.
 */
export function readStreamItem(item: unknown): StreamItem | undefined {
  if (!Array.isArray(item)) return undefined;
  const [namespace, mode, chunk] =
    item.length === 3 ? (item as [string[], StreamModeName, unknown]) : [[], ...(item as [StreamModeName, unknown])];
  if (namespace.length > 0 && (mode === 'values' || mode === 'updates')) return undefined;
  return { namespace, mode, chunk };
}

/** How a run ended, once it has. */
export type RunOutcome = 'completed' | 'failed' | 'canceled' | 'rejected' | 'waiting' | 'message';

export interface GraphRunOptions {
  ids: RunIds;
  env: IdsAndClock;
  userMessage: Message;
  /** The task this message continues, when it continues one. */
  existingTask: Task | undefined;
  /**
   * True when the graph may answer with a direct Message instead of a task (it has an
   * `a2a_outbox` channel and this message starts no task). The task is then created
   * lazily, at the first event that needs one.
   */
  mayReplyWithMessage: boolean;
  /** Called with task metadata to merge, before the event that carries it is returned. */
  onTaskMetadata: (metadata: Record<string, unknown>) => void;
  /** Called with a reason when a chunk is dropped (bad helper payload, invalid outbox). */
  onDiagnostic: (message: string, detail?: Record<string, unknown>) => void;
}

/**
 * The state of one graph run as seen by A2A: `process(mode, chunk)` for every
 * streamed chunk, then exactly one of `finish()`, `fail()` or `cancel()`. Each
 * returns the events to publish, in order. Once a terminal state was returned,
 * every later call returns nothing: no event may overwrite a terminal state.
 */
export class GraphRun {
  private readonly events: EventFactory;
  private readonly delta: StreamDeltaArtifact;
  private taskPublished = false;
  private ended = false;
  private lastValues: Record<string, unknown> | undefined;
  private baselineIds: Set<string> | undefined;
  private readonly interrupts = new Map<string, PendingInterrupt>();
  private endedAs: RunOutcome | undefined;

  constructor(private readonly opts: GraphRunOptions) {
    this.events = eventFactory(opts.ids, opts.env);
    this.delta = new StreamDeltaArtifact(this.events);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get outcome(): RunOutcome | undefined {
    return this.endedAs;
  }

  /** Events to publish before the graph runs. */
  start(): AgentExecutionEvent[] {
    return this.opts.mayReplyWithMessage ? [] : this.ensureTask();
  }

  process(mode: StreamModeName, chunk: unknown): AgentExecutionEvent[] {
    if (this.ended) return [];
    switch (mode) {
      case 'values': {
        // An interrupt shows up as a values chunk of its own; it is not the state.
        if (this.collectInterrupts(chunk)) return [];
        if (typeof chunk !== 'object' || chunk === null) return [];
        this.lastValues = chunk as Record<string, unknown>;
        this.baselineIds ??= messageIds(this.lastValues);
        return [];
      }
      case 'messages': {
        const delta = mapMessagesChunk(chunk);
        return delta ? [...this.ensureTask(), ...this.delta.push(delta)] : [];
      }
      case 'custom':
        return this.processCustom(chunk);
      case 'updates':
        // Node progress is for observability; `__interrupt__` marks a pending interrupt.
        this.collectInterrupts(chunk);
        return [];
      default: {
        const unreachable: never = mode;
        return unreachable;
      }
    }
  }

  finish(): AgentExecutionEvent[] {
    if (this.ended) return [];
    if (this.interrupts.size > 0) return this.wait([...this.interrupts.values()]);
    const answer = finalAnswer({
      values: this.lastValues,
      inboundMessageId: this.opts.userMessage.messageId,
      deltaText: this.delta.text,
      baselineIds: this.baselineIds,
    });
    switch (answer.kind) {
      case 'outbox': {
        const out = answer.answer;
        if (out.kind === 'message') {
          if (!this.taskPublished) {
            this.ended = true;
            this.endedAs = 'message';
            const m = out.message;
            return [this.events.directMessage(m.parts, { messageId: m.messageId, metadata: m.metadata })];
          }
          return this.complete(TaskState.TASK_STATE_COMPLETED, this.toAgentMessage(out.message));
        }
        const events = [...this.ensureTask(), ...this.delta.close()];
        for (const a of out.artifacts) {
          events.push(
            this.events.artifact(
              { ...a, artifactId: a.artifactId ?? this.opts.env.newId() },
              { append: false, lastChunk: true },
            ),
          );
        }
        for (const h of out.history) {
          events.push(this.events.status(TaskState.TASK_STATE_WORKING, this.toAgentMessage(h)));
        }
        if (Object.keys(out.metadata).length > 0) {
          this.opts.onTaskMetadata(out.metadata);
          events.push(this.events.status(TaskState.TASK_STATE_WORKING, undefined, out.metadata));
        }
        const message = out.message ? this.toAgentMessage(out.message) : undefined;
        return [...events, ...this.complete(out.state, message)];
      }
      case 'invalid-outbox':
        this.opts.onDiagnostic('the graph returned an invalid a2a_outbox', { reason: answer.reason });
        return this.fail(`The agent produced an invalid answer (a2a_outbox): ${answer.reason}`);
      case 'ai-message': {
        const metadata = this.delta.hasStreamed ? { [STREAMED_AS_KEY]: STREAM_DELTA_ARTIFACT_ID } : {};
        const message = this.events.agentMessage([parts.text(answer.text)], { messageId: answer.messageId, metadata });
        return this.complete(TaskState.TASK_STATE_COMPLETED, message);
      }
      case 'delta': {
        const message = this.events.agentMessage([parts.text(answer.text)], {
          metadata: { [STREAMED_AS_KEY]: STREAM_DELTA_ARTIFACT_ID },
        });
        return this.complete(TaskState.TASK_STATE_COMPLETED, message);
      }
      case 'none':
        return this.complete(
          TaskState.TASK_STATE_COMPLETED,
          this.events.agentMessage([parts.text('The agent finished without a reply.')]),
        );
      default: {
        const unreachable: never = answer;
        return unreachable;
      }
    }
  }

  /** Ends the task failed. `safeMessage` is shown to the client; details belong in the log. */
  fail(safeMessage: string): AgentExecutionEvent[] {
    if (this.ended) return [];
    return this.complete(TaskState.TASK_STATE_FAILED, this.events.agentMessage([parts.text(safeMessage)]));
  }

  cancel(reason = 'The task was canceled.'): AgentExecutionEvent[] {
    if (this.ended) return [];
    return this.complete(TaskState.TASK_STATE_CANCELED, this.events.agentMessage([parts.text(reason)]));
  }

  /**
   * The answer to a waiting task did not pass validation: the task stays waiting, with
   * the reason and the same questions. No graph runs.
   */
  stillWaiting(pending: PendingInterrupt[], reason: string): AgentExecutionEvent[] {
    if (this.ended) return [];
    const existing = this.opts.existingTask;
    const state = waitState(pending);
    this.taskPublished = true;
    this.ended = true;
    this.endedAs = 'waiting';
    const metadata = { [INTERRUPTS_KEY]: pending };
    return [
      this.events.task(state, existing?.history ?? [this.opts.userMessage], {
        artifacts: existing?.artifacts ?? [],
        metadata: { ...existing?.metadata, ...metadata },
      }),
      this.events.status(state, this.events.agentMessage(waitingParts(pending, reason)), metadata),
    ];
  }

  private wait(pending: PendingInterrupt[]): AgentExecutionEvent[] {
    const metadata = { [INTERRUPTS_KEY]: pending };
    this.opts.onTaskMetadata(metadata);
    const events = [
      ...this.ensureTask(),
      ...this.delta.close(),
      this.events.status(waitState(pending), this.events.agentMessage(waitingParts(pending)), metadata),
    ];
    this.ended = true;
    this.endedAs = 'waiting';
    return events;
  }

  private collectInterrupts(chunk: unknown): boolean {
    const raw = readInterrupts(chunk);
    if (!raw) return false;
    for (const r of raw) this.interrupts.set(r.id, describeInterrupt(r));
    return true;
  }

  private complete(state: TaskState, message: Message | undefined): AgentExecutionEvent[] {
    const events = [...this.ensureTask(), ...this.delta.close(), this.events.status(state, message)];
    if (TERMINAL_STATES.has(state)) {
      this.ended = true;
      this.endedAs =
        state === TaskState.TASK_STATE_FAILED
          ? 'failed'
          : state === TaskState.TASK_STATE_CANCELED
            ? 'canceled'
            : state === TaskState.TASK_STATE_REJECTED
              ? 'rejected'
              : 'completed';
    }
    return events;
  }

  private toAgentMessage(m: OutboxMessage): Message {
    return this.events.agentMessage(m.parts, { messageId: m.messageId, metadata: m.metadata });
  }

  /** The task event and the move to `working`, once per run. */
  private ensureTask(): AgentExecutionEvent[] {
    if (this.taskPublished) return [];
    this.taskPublished = true;
    const existing = this.opts.existingTask;
    const history = existing ? existing.history : [this.opts.userMessage];
    // A resumed task no longer waits on anything: its pending interrupts are cleared.
    const first = existing
      ? this.events.task(TaskState.TASK_STATE_WORKING, history, {
          artifacts: existing.artifacts,
          metadata: { ...existing.metadata, ...(existing.metadata?.[INTERRUPTS_KEY] ? { [INTERRUPTS_KEY]: [] } : {}) },
        })
      : this.events.task(TaskState.TASK_STATE_SUBMITTED, history);
    return [first, this.events.status(TaskState.TASK_STATE_WORKING)];
  }

  private processCustom(chunk: unknown): AgentExecutionEvent[] {
    const result = mapCustomChunk(chunk);
    switch (result.kind) {
      case 'ignored':
        return [];
      case 'invalid':
        this.opts.onDiagnostic('ignored an invalid stream-helper payload', { reason: result.reason });
        return [];
      case 'helper':
        return [...this.ensureTask(), ...this.helperEvents(result.event)];
      default: {
        const unreachable: never = result;
        return unreachable;
      }
    }
  }

  private helperEvents(event: HelperEvent): AgentExecutionEvent[] {
    switch (event.type) {
      case 'file':
      case 'data': {
        const p = event.payload;
        const part = event.type === 'file' ? filePart(event.payload) : parts.data(event.payload.data);
        return [
          this.events.artifact(
            {
              artifactId: p.artifactId ?? this.opts.env.newId(),
              name: p.name ?? '',
              description: p.description ?? '',
              metadata: p.metadata ?? {},
              parts: [part],
            },
            { append: p.append, lastChunk: p.lastChunk },
          ),
        ];
      }
      case 'message':
        return [
          this.events.status(
            TaskState.TASK_STATE_WORKING,
            this.events.agentMessage([parts.text(event.payload.text)], { metadata: event.payload.metadata ?? {} }),
          ),
        ];
      case 'task-metadata':
        this.opts.onTaskMetadata(event.payload.metadata);
        return [this.events.status(TaskState.TASK_STATE_WORKING, undefined, event.payload.metadata)];
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }
}

function messageIds(values: Record<string, unknown>): Set<string> {
  const list = values.messages;
  if (!Array.isArray(list)) return new Set();
  return new Set(
    list.flatMap((m: unknown) => (typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : [])),
  );
}
