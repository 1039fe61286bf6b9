import { MemorySaver } from '@langchain/langgraph';

/**
 * What the server needs of a compiled LangGraph graph: `stream()` with LangGraph's
 * options. A compiled StateGraph satisfies it, and so does a replayed recording.
 */
export interface StreamableGraph {
  stream(input: unknown, options?: unknown): Promise<AsyncIterable<unknown>>;
  /** The compiled graph's channels; their names decide the inbound mapping. */
  channels?: Record<string, unknown>;
  name?: string;
  checkpointer?: unknown;
}

export function isStreamableGraph(value: unknown): value is StreamableGraph {
  return typeof value === 'object' && value !== null && typeof (value as StreamableGraph).stream === 'function';
}

export function channelNames(graph: StreamableGraph): Set<string> {
  return new Set(Object.keys(graph.channels ?? {}));
}

/**
 * Multi-turn memory needs a checkpointer: a graph compiled without one gets an
 * in-memory saver, so a second task in the same context sees the conversation.
 * A graph compiled with `checkpointer: false` is left alone.
 */
export function ensureCheckpointer(graph: StreamableGraph): void {
  if (graph.checkpointer === undefined || graph.checkpointer === null) {
    graph.checkpointer = new MemorySaver();
  }
}

export function graphName(graph: StreamableGraph): string | undefined {
  const name = graph.name;
  return name && name !== 'LangGraph' ? name : undefined;
}
