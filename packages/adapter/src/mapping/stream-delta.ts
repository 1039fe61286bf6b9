import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
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

/** True for a stream-delta chunk: an update of the stream-delta artifact that does not end it. */
export function isDeltaChunk(event: AgentExecutionEvent): boolean {
  return (
    event.kind === 'artifactUpdate' &&
    event.data.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID &&
    !event.data.lastChunk
  );
}

/**
 * One stream-delta chunk carrying the text of `first`, then of `next`, losslessly and in
 * order: consecutive text of one message (same message id) joins into one part, text of
 * another message starts a new part. `first` decides `append`. Neither input is changed.
 */
export function mergeDeltaChunks(first: AgentExecutionEvent, next: AgentExecutionEvent): AgentExecutionEvent {
  if (first.kind !== 'artifactUpdate' || next.kind !== 'artifactUpdate' || !first.data.artifact) {
    throw new Error('mergeDeltaChunks takes two stream-delta chunks');
  }
  const merged = [...first.data.artifact.parts];
  for (const part of next.data.artifact?.parts ?? []) {
    const last = merged.at(-1);
    if (
      last?.content?.$case === 'text' &&
      part.content?.$case === 'text' &&
      last.metadata?.[DELTA_MESSAGE_ID_KEY] === part.metadata?.[DELTA_MESSAGE_ID_KEY]
    ) {
      merged[merged.length - 1] = {
        ...last,
        content: { $case: 'text', value: last.content.value + part.content.value },
      };
    } else {
      merged.push(part);
    }
  }
  return AgentEvent.artifactUpdate({ ...first.data, artifact: { ...first.data.artifact, parts: merged } });
}
