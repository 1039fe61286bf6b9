import type { ListTasksRequest, ListTasksResponse, Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { STREAM_DELTA_ARTIFACT_ID } from '../constants.js';
import { TERMINAL_STATES } from '../mapping/events.js';

/**
 * Wraps the configured TaskStore with the rules the SDK's ResultManager does not
 * know about:
 * - the transitory stream-delta artifact is never written as a durable artifact, and a
 *   save that carries it is skipped altogether: the ResultManager saves the whole task
 *   on every event, and since the stored task never holds that artifact, a save with it
 *   is the save of a stream-delta event, which changes nothing durable. Skipping it
 *   spares every streamed token a read and a write of the task;
 * - task metadata set by a graph (stream-helpers, outbox) is merged shallowly into the
 *   stored task. The executor registers it here before it publishes the event that
 *   makes the ResultManager save the task, so the next save carries it;
 * - a terminal task is never overwritten with another state (a cancel or a crash
 *   settlement written by another instance wins over a late event). The database stores
 *   enforce this themselves, atomically (a trigger, see `schema.ts`). The memory store,
 *   which only this process writes, through this wrapper, is guarded here: the wrapper
 *   remembers which tasks it saved in a terminal state;
 * - with a database store, a task whose graph runs on this instance is read from memory
 *   (see {@link keepLiveTasks}): the ResultManager reads the task for every event, also
 *   for every token delta, and that would be a query per token.
 */
export class AdapterTaskStore implements TaskStore {
  private readonly pendingMetadata = new Map<string, Record<string, unknown>>();
  /** Terminal states saved through this wrapper, when the store does not guard them itself. */
  private readonly settled = new Map<string, TaskState>();

  /** The last version saved of each task running here (database stores only). */
  private readonly live = new Map<string, Task>();
  private isRunningHere: ((taskId: string) => boolean) | undefined;

  constructor(
    readonly inner: TaskStore,
    private readonly keepsTerminalStates = false,
  ) {}

  /**
   * Serve loads of a task whose graph runs on this instance from the last version saved
   * through this store, instead of the database. While a task runs here, this instance
   * writes it (a cancel from another instance is relayed to this one), so that version is
   * the stored one. A task stops being served from memory when it ends, or stops running
   * here (waiting for input, answered elsewhere); call {@link forget} when a run ends.
   */
  keepLiveTasks(isRunningHere: (taskId: string) => boolean): void {
    this.isRunningHere = isRunningHere;
  }

  /** Drops the in-memory version of a task (its run ended). */
  forget(taskId: string): void {
    this.live.delete(taskId);
  }

  mergeMetadata(taskId: string, metadata: Record<string, unknown>): void {
    this.pendingMetadata.set(taskId, { ...this.pendingMetadata.get(taskId), ...metadata });
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    // Pending metadata stays pending: the next durable save carries it.
    if (task.artifacts.some((a) => a.artifactId === STREAM_DELTA_ARTIFACT_ID)) return;
    const state = task.status?.state;
    if (!this.keepsTerminalStates) {
      const settled = this.settled.get(task.id);
      if (settled !== undefined && state !== settled) return;
      // Recorded before the write is awaited: a save that comes in meanwhile sees it.
      if (state !== undefined && TERMINAL_STATES.has(state)) this.settled.set(task.id, state);
    }
    const pending = this.pendingMetadata.get(task.id);
    const toSave = pending ? { ...task, metadata: { ...task.metadata, ...pending } } : task;
    await this.inner.save(toSave, context);
    if (pending) this.pendingMetadata.delete(task.id);
    if (this.isRunningHere?.(task.id) && !(state !== undefined && TERMINAL_STATES.has(state))) {
      this.live.set(task.id, structuredClone(toSave));
    } else {
      this.live.delete(task.id);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const live = this.live.get(taskId);
    if (live) {
      if (this.isRunningHere?.(taskId)) return structuredClone(live);
      this.live.delete(taskId);
    }
    return this.inner.load(taskId, context);
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.list(params, context);
  }
}
