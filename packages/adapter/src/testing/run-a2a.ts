import { randomUUID } from 'node:crypto';
import { LangGraphA2AError } from '../errors.js';
import type { StreamableGraph } from '../executor/graph.js';
import type { IdsAndClock } from '../mapping/env.js';
import { silentLogger } from '../logger.js';
import { JSONRPC_PATH } from '../server/card.js';
import { createServer, type CreateServerOptions } from '../server/create-server.js';
import { deterministicIdsAndClock } from './ids.js';
import { ReplayGraph } from './replay.js';

/** One thing a client does: send text, send a data part (an answer to an interrupt), or cancel the task. */
export type A2AStep = { text: string } | { data: unknown } | { cancel: true };

/** A message text, one step, or steps in order on one context. */
export type A2ARequest = string | A2AStep | A2AStep[];

export type A2AProtocol = 'v1' | 'v0.3';

export interface RunA2AOptions {
  /** Which wire shape the client speaks. @defaultValue 'v1' */
  protocol?: A2AProtocol;
  /** Send with the streaming method (SSE) or the blocking one. @defaultValue true */
  stream?: boolean;
  /** Ids and clock of the server's events. @defaultValue {@link deterministicIdsAndClock} */
  idsAndClock?: IdsAndClock;
  /** More server options (e.g. `busyContext`); the store is always fresh memory. */
  server?: Omit<Partial<CreateServerOptions>, 'graph' | 'store' | 'idsAndClock'>;
}

/** One JSON-RPC call and every frame the server sent back for it, in order. */
export interface A2AExchange {
  method: string;
  params: unknown;
  frames: unknown[];
}

const METHODS = {
  v1: { send: 'SendMessage', stream: 'SendStreamingMessage', cancel: 'CancelTask' },
  'v0.3': { send: 'message/send', stream: 'message/stream', cancel: 'tasks/cancel' },
} as const;

/** How the context of a run shows in its frames (every step of one run shares it). */
export const RUN_CONTEXT_ID = 'context-1';

function stepsOf(graph: StreamableGraph, request: A2ARequest | undefined): A2AStep[] {
  if (request === undefined) {
    if (!(graph instanceof ReplayGraph)) {
      throw new LangGraphA2AError('INVALID_OPTIONS', 'runA2A needs a request unless the graph is a replay');
    }
    return graph.fixture.runs.flatMap((run): A2AStep[] => {
      const r = run.request ?? { text: '' };
      const send: A2AStep = r.data !== undefined ? { data: r.data } : { text: r.text ?? '' };
      return run.end.kind === 'canceled' ? [send, { cancel: true }] : [send];
    });
  }
  if (typeof request === 'string') return [{ text: request }];
  return Array.isArray(request) ? request : [request];
}

function wireMessage(step: { text: string } | { data: unknown }, n: number, contextId: string, protocol: A2AProtocol) {
  const messageId = `message-${n}`;
  if (protocol === 'v1') {
    const part = 'text' in step ? { text: step.text } : { data: step.data };
    return { messageId, contextId, role: 'ROLE_USER', parts: [part] };
  }
  const part = 'text' in step ? { kind: 'text', text: step.text } : { kind: 'data', data: step.data };
  return { kind: 'message', messageId, contextId, role: 'user', parts: [part] };
}

/**
 * Serves `graph` (a compiled graph or a {@link ReplayGraph}) on a fresh in-memory server
 * on loopback, plays `request` against it over JSON-RPC as an A2A client would, and
 * returns every frame the server sent. The context is `context-1`; ids the server draws
 * (task ids) and any UUID in the frames are renamed in order of appearance (`task-1`,
 * `uuid-1`…), and the server's
 * ids and clock are deterministic, so the result suits `toMatchFileSnapshot`.
 * Without `request`, a replay plays the requests it was recorded with.
 */
export async function runA2A(
  graph: StreamableGraph,
  request?: A2ARequest,
  options: RunA2AOptions = {},
): Promise<A2AExchange[]> {
  const protocol = options.protocol ?? 'v1';
  const streaming = options.stream ?? true;
  const steps = stepsOf(graph, request);
  const methods = METHODS[protocol];
  // A fresh thread each time: a live graph's checkpointer outlives the server.
  const contextId = randomUUID();
  const app = await createServer({
    logger: silentLogger(),
    pushNotifications: false,
    // One frame per recorded token chunk: coalesced frames would follow the event loop's timing.
    coalesceDeltas: false,
    ...options.server,
    graph,
    store: 'memory',
    idsAndClock: options.idsAndClock ?? deterministicIdsAndClock(),
  });
  const exchanges: A2AExchange[] = [];
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${base}${options.server?.prefix ?? '/a2a'}${JSONRPC_PATH}`;
    let rpcId = 0;
    let messages = 0;
    let lastTaskId: string | undefined;
    let open: Promise<void> | undefined;
    for (const [i, step] of steps.entries()) {
      if ('cancel' in step) {
        if (graph instanceof ReplayGraph) await graph.whenPaused();
        if (!lastTaskId) throw new LangGraphA2AError('INVALID_OPTIONS', 'a cancel step needs a task sent before it');
        const params = { id: lastTaskId };
        const exchange: A2AExchange = { method: methods.cancel, params, frames: [] };
        exchanges.push(exchange);
        exchange.frames.push(...(await call(url, ++rpcId, methods.cancel, params, false)).frames);
        continue;
      }
      await open;
      open = undefined;
      await app.a2a.executor.whenIdle();
      const cancelNext = 'cancel' in (steps[i + 1] ?? {});
      const message = wireMessage(step, ++messages, contextId, protocol);
      const configuration =
        cancelNext && !streaming ? (protocol === 'v1' ? { returnImmediately: true } : { blocking: false }) : undefined;
      const params = { message, ...(configuration ? { configuration } : {}) };
      const method = streaming ? methods.stream : methods.send;
      const exchange: A2AExchange = { method, params, frames: [] };
      exchanges.push(exchange);
      // The task this send went to: the cancel step after it cancels that one.
      let taskSeen!: () => void;
      const taskKnown = new Promise<void>((resolve) => (taskSeen = resolve));
      let sentTo: string | undefined;
      const pending = call(url, ++rpcId, method, params, streaming, (frame) => {
        exchange.frames.push(frame);
        if (sentTo === undefined && (sentTo = taskIdOf(frame)) !== undefined) {
          lastTaskId = sentTo;
          taskSeen();
        }
      });
      if (cancelNext && streaming) {
        // The stream stays open while the cancel goes out, once the task exists.
        await Promise.race([taskKnown, pending]);
        open = pending.then(() => undefined);
        open.catch(() => undefined); // awaited below; a failure surfaces there
      } else {
        await pending;
      }
    }
    await open;
    await app.a2a.executor.whenIdle();
  } finally {
    await app.close();
  }
  return normalizeIds(exchanges, { [contextId]: RUN_CONTEXT_ID });
}

/** The id of the task a frame is about (v1 or v0.3 shapes), if it names one. */
function taskIdOf(frame: unknown): string | undefined {
  const result = (frame as { result?: Record<string, unknown> } | undefined)?.result;
  if (!result) return undefined;
  const inner =
    (result.task as Record<string, unknown> | undefined) ??
    (result.statusUpdate as Record<string, unknown> | undefined) ??
    (result.artifactUpdate as Record<string, unknown> | undefined) ??
    result;
  const id = typeof inner.taskId === 'string' ? inner.taskId : isTaskLike(inner) ? inner.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function isTaskLike(value: Record<string, unknown>): boolean {
  return typeof value.id === 'string' && 'status' in value && 'contextId' in value;
}

async function call(
  url: string,
  id: number,
  method: string,
  params: unknown,
  streaming: boolean,
  onFrame: (frame: unknown) => void = () => undefined,
): Promise<{ frames: unknown[] }> {
  const frames: unknown[] = [];
  const push = (frame: unknown) => {
    frames.push(frame);
    onFrame(frame);
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: streaming ? 'text/event-stream' : 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
    push(JSON.parse(await res.text()) as unknown);
    return { frames };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) push(JSON.parse(data) as unknown);
    }
  }
  return { frames };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Renames what differs from run to run: task ids become `task-N`, any other UUID
 * (in ids or inside text) `uuid-N`, each in order of first appearance.
 */
export function normalizeIds<T>(value: T, known: Record<string, string> = {}): T {
  const tasks = new Map<string, string>(Object.entries(known));
  let taskCount = 0;
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(collect);
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    const id = typeof o.taskId === 'string' && o.taskId ? o.taskId : isTaskLike(o) ? (o.id as string) : undefined;
    if (id && !tasks.has(id)) tasks.set(id, `task-${++taskCount}`);
    for (const child of Object.values(o)) collect(child);
  };
  collect(value);
  const uuids = new Map<string, string>();
  const rename = (s: string): string => {
    const task = tasks.get(s);
    if (task) return task;
    return s.replace(UUID, (u) => {
      const known = tasks.get(u) ?? uuids.get(u);
      if (known) return known;
      const next = `uuid-${uuids.size + 1}`;
      uuids.set(u, next);
      return next;
    });
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rename(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, c]) => [k, walk(c)]));
  };
  return walk(value) as T;
}

/** Frames as stable, readable text for `toMatchFileSnapshot`. */
export function formatExchanges(exchanges: A2AExchange[]): string {
  return JSON.stringify(exchanges, null, 2) + '\n';
}
