import { setImmediate as nextTick } from 'node:timers/promises';
import { LangGraphA2AError } from '../errors.js';
import type { StreamableGraph } from '../executor/graph.js';
import type { Fixture, RecordedRun } from './fixture.js';

/** What the server passed to one `stream()` call of a replayed graph. */
export interface ReplayCall {
  input: unknown;
  options: unknown;
}

/**
 * A recorded graph playing back: `stream()` yields the next recorded run's chunks, one
 * per event-loop turn as a model streaming over a network would, then ends the way the
 * run ended (the recorded error is thrown again). A run that was canceled while recording
 * pauses where it was canceled until the server aborts it.
 */
export class ReplayGraph implements StreamableGraph {
  readonly name: string;
  readonly channels: Record<string, unknown>;
  /** Replays keep no checkpoints: the recording is the state. */
  readonly checkpointer = false;
  /** Every `stream()` call so far, for assertions on what the server sent the graph. */
  readonly calls: ReplayCall[] = [];
  private pausedWaiters: Array<() => void> = [];
  private pausedCount = 0;

  constructor(readonly fixture: Fixture) {
    this.name = fixture.header.graph;
    this.channels = Object.fromEntries(fixture.header.channels.map((c) => [c, true]));
  }

  /** Runs not yet replayed. */
  get remainingRuns(): number {
    return this.fixture.runs.length - this.calls.length;
  }

  /** Resolves when a replayed run reaches the point where its recording was canceled. */
  whenPaused(): Promise<void> {
    if (this.pausedCount > 0) {
      this.pausedCount--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.pausedWaiters.push(resolve));
  }

  private notifyPaused(): void {
    const waiter = this.pausedWaiters.shift();
    if (waiter) waiter();
    else this.pausedCount++;
  }

  stream(input: unknown, options?: unknown): Promise<AsyncIterable<unknown>> {
    const index = this.calls.length;
    const run = this.fixture.runs[index];
    if (!run) {
      return Promise.reject(
        new LangGraphA2AError(
          'REPLAY_EXHAUSTED',
          `the recording of "${this.name}" has ${this.fixture.runs.length} run(s); run ${index + 1} was asked for`,
        ),
      );
    }
    this.calls.push({ input, options });
    const { signal, subgraphs } = (options ?? {}) as { signal?: AbortSignal; subgraphs?: boolean };
    return Promise.resolve(this.play(run, signal, subgraphs === true));
  }

  private async *play(run: RecordedRun, signal: AbortSignal | undefined, subgraphs: boolean): AsyncGenerator<unknown> {
    for (const chunk of run.chunks) {
      // As LangGraph does: subgraph chunks and namespaces only for `subgraphs: true`.
      if (!subgraphs && chunk.namespace.length > 0) continue;
      await nextTick();
      throwIfAborted(signal);
      yield subgraphs ? [chunk.namespace, chunk.mode, chunk.payload] : [chunk.mode, chunk.payload];
    }
    await nextTick();
    throwIfAborted(signal);
    if (run.end.kind === 'error') {
      const error = new Error(run.end.message);
      error.name = run.end.name;
      throw error;
    }
    if (run.end.kind === 'canceled') {
      const aborted = new Promise<void>((resolve) => {
        if (!signal || signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      this.notifyPaused();
      await aborted;
      throwIfAborted(signal);
    }
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    const error = new Error('Aborted');
    error.name = 'AbortError';
    throw error;
  }
}

/** A graph that plays `fixture` back; the server runs it exactly like the recorded graph. */
export function replayGraph(fixture: Fixture): ReplayGraph {
  return new ReplayGraph(fixture);
}
