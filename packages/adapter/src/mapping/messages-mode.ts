import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { RESERVED_PREFIX } from '../constants.js';

/** A token delta found in one `messages`-mode chunk. */
export interface TokenDelta {
  text: string;
  messageId: string | undefined;
  node: string | undefined;
}

export const DELTA_MESSAGE_ID_KEY = `${RESERVED_PREFIX}messageId`;

/**
 * Maps one `messages`-mode chunk (`[message, metadata]`) to a token delta.
 * Only LLM chunks are deltas: whole messages a node returns are not streamed as
 * deltas (they reach the client through the final answer), and chunks without
 * text (tool-call chunks) carry nothing to show.
 */
export function mapMessagesChunk(chunk: unknown): TokenDelta | undefined {
  if (!Array.isArray(chunk) || chunk.length < 1) return undefined;
  const [message, metadata] = chunk as [BaseMessage, Record<string, unknown> | undefined];
  if (!message || !AIMessageChunk.isInstance(message)) return undefined;
  const text = message.text;
  if (!text) return undefined;
  const node = typeof metadata?.langgraph_node === 'string' ? metadata.langgraph_node : undefined;
  return { text, messageId: message.id, node };
}
