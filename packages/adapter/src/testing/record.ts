import { randomUUID } from 'node:crypto';
import { Role, type Message } from '@a2a-js/sdk';
import { Command } from '@langchain/langgraph';
import { buildEnvelope, toConfigurable, toGraphInput } from '../mapping/inbound.js';
import { STREAM_MODES, type StreamModeName } from '../mapping/run.js';
import { channelNames, ensureCheckpointer, graphName, type StreamableGraph } from '../executor/graph.js';
import { FIXTURE_FORMAT, type Fixture, type RecordedRequest, type RecordedRun } from './fixture.js';
import { packageVersions } from './versions.js';
import { parts } from '../mapping/events.js';

/**
 * What a recorded run starts from: a string is the text of an A2A message, mapped to the
 * graph input exactly as the server maps it; an object is given to the graph as it is.
 */
export type RecordInput = string | Record<string, unknown>;

/** LangGraph's run config, as `graph.stream()` takes it (the stream mode is set by the recorder). */
export interface RecordConfig {
  configurable?: Record<string, unknown>;
  recursionLimit?: number;
  [key: string]: unknown;
}

export interface RecordOptions {
  /**
   * Further runs on the same thread, each answering the interrupt the run before ended on:
   * the value the graph resumes with (a string is sent as text, anything else as a data part).
   */
  resume?: unknown[];
  /** Cancel the last run after it has streamed this many chunks (a cancel scenario). */
  cancelAfter?: number;
}

function textMessage(text: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [parts.text(text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * Runs `graph` and records everything it streams, in the four stream modes the server
 * uses, with interrupts and errors, as a {@link Fixture} that {@link replayGraph} plays back.
 * A graph that throws is recorded as such (the error is part of the fixture, not thrown).
 */
export async function recordGraphStream(
  graph: StreamableGraph,
  input: RecordInput,
  config: RecordConfig = {},
  options: RecordOptions = {},
): Promise<Fixture> {
  ensureCheckpointer(graph);
  const channels = channelNames(graph);
  const threadId = (config.configurable?.thread_id as string | undefined) ?? randomUUID();
  const turns: Array<{ input: unknown; request?: RecordedRequest; configurable: Record<string, unknown> }> = [];
  if (typeof input === 'string') {
    const message = textMessage(input, threadId);
    const request = { message, task: undefined, metadata: undefined };
    turns.push({
      input: toGraphInput(request, { channels, filePartMapping: 'inbox-only' }),
      request: { text: input },
      configurable: toConfigurable(threadId, buildEnvelope(request)),
    });
  } else {
    turns.push({ input, configurable: { thread_id: threadId } });
  }
  for (const value of options.resume ?? []) {
    turns.push({
      input: new Command({ resume: value }),
      request: typeof value === 'string' ? { text: value } : { data: value },
      configurable: { thread_id: threadId },
    });
  }

  const runs: RecordedRun[] = [];
  for (const [i, turn] of turns.entries()) {
    const cancelAfter = i === turns.length - 1 ? options.cancelAfter : undefined;
    runs.push(await recordRun(graph, turn, config, cancelAfter));
  }
  return {
    header: {
      format: FIXTURE_FORMAT,
      graph: graphName(graph) ?? 'LangGraph',
      // LangGraph's own channels (`__start__`, `branch:to:…`) say nothing about the mapping.
      channels: [...channels].filter((c) => !c.startsWith('__') && !c.startsWith('branch:')),
      versions: packageVersions(),
      input,
    },
    runs,
  };
}

async function recordRun(
  graph: StreamableGraph,
  turn: { input: unknown; request?: RecordedRequest; configurable: Record<string, unknown> },
  config: RecordConfig,
  cancelAfter: number | undefined,
): Promise<RecordedRun> {
  const run: RecordedRun = {
    input: turn.input,
    ...(turn.request ? { request: turn.request } : {}),
    chunks: [],
    end: { kind: 'done' },
  };
  const abort = new AbortController();
  try {
    const stream = await graph.stream(turn.input, {
      ...config,
      configurable: { ...config.configurable, ...turn.configurable },
      streamMode: STREAM_MODES,
      subgraphs: true,
      signal: abort.signal,
    });
    for await (const item of stream) {
      const [namespace, mode, payload] = item as [string[], StreamModeName, unknown];
      run.chunks.push({ namespace, mode, payload });
      if (cancelAfter !== undefined && run.chunks.length >= cancelAfter) {
        run.end = { kind: 'canceled' };
        abort.abort(new Error('canceled'));
        break;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) {
      const e = error instanceof Error ? error : new Error(String(error));
      run.end = { kind: 'error', name: e.name, message: e.message };
    }
  }
  return run;
}
