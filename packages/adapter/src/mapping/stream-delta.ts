import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { STREAM_DELTA_ARTIFACT_ID, STREAM_DELTA_ARTIFACT_NAME } from '../constants.js';
import { parts, type EventFactory } from './events.js';
import { DELTA_MESSAGE_ID_KEY, type TokenDelta } from './messages-mode.js';

/**
 * The transitory "Stream Delta" artifact: the first delta opens it, each further
 * delta is appended, and `close()` sends the one and only `lastChunk: true`.
 */
export class StreamDeltaArtifact {
  private opened = false;
  private closed = false;
  private accumulated = '';

  constructor(private readonly events: EventFactory) {}

  get text(): string {
    return this.accumulated;
  }

  get hasStreamed(): boolean {
    return this.opened;
  }

  push(delta: TokenDelta): AgentExecutionEvent[] {
    if (this.closed) return [];
    this.accumulated += delta.text;
    const append = this.opened;
    this.opened = true;
    const metadata = delta.messageId ? { [DELTA_MESSAGE_ID_KEY]: delta.messageId } : {};
    return [
      this.events.artifact(
        {
          artifactId: STREAM_DELTA_ARTIFACT_ID,
          name: STREAM_DELTA_ARTIFACT_NAME,
          parts: [parts.text(delta.text, metadata)],
        },
        { append, lastChunk: false },
      ),
    ];
  }

  /** Ends the artifact, if it was opened. An empty text part marks the end. */
  close(): AgentExecutionEvent[] {
    if (!this.opened || this.closed) return [];
    this.closed = true;
    return [
      this.events.artifact(
        { artifactId: STREAM_DELTA_ARTIFACT_ID, name: STREAM_DELTA_ARTIFACT_NAME, parts: [parts.text('')] },
        { append: true, lastChunk: true },
      ),
    ];
  }
}
