import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { isDeltaChunk, mergeDeltaChunks } from '../mapping/stream-delta.js';

/**
 * Sends the stream-delta chunks a run produces within one turn of the event loop as one
 * artifact-update. Every streamed event costs the SDK's request handler a trip through
 * its ResultManager, the push sender and the transport, and the client one SSE frame;
 * a model (or a replay) that hands over many tokens at once pays that once.
 *
 * Lossless and ordered: held chunks are merged (see {@link mergeDeltaChunks}) and sent
 * before any other event, at the latest in the next `setImmediate`, and on {@link flush}.
 * Tokens that arrive one per turn are sent as they come.
 */
export class DeltaCoalescer {
  private held: AgentExecutionEvent | undefined;
  private timer: NodeJS.Immediate | undefined;

  constructor(private readonly send: (event: AgentExecutionEvent) => void) {}

  publish(events: AgentExecutionEvent[]): void {
    for (const event of events) {
      if (isDeltaChunk(event)) {
        this.held = this.held ? mergeDeltaChunks(this.held, event) : event;
        this.timer ??= setImmediate(() => this.flush());
      } else {
        this.flush();
        this.send(event);
      }
    }
  }

  /** Sends what is held now. A run MUST flush before it returns. */
  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    const held = this.held;
    this.held = undefined;
    if (held) this.send(held);
  }
}
