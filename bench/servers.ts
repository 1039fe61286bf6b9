/**
 * One server under test, in its own process so its CPU time and memory are its own.
 * Started by bench/run.ts with `fork`; it answers `usage` messages over IPC with
 * `process.cpuUsage()` and `process.memoryUsage()`.
 *
 *   node --import tsx bench/servers.ts <ours|ours-per-chunk|sdk|fastify|http> <echo|tokens|burst|slow> [store]
 *
 * - ours: createServer() of this project (memory store unless a store is given), logger at warn;
 *   ours-per-chunk: the same with `coalesceDeltas: false` (one frame per token chunk).
 * - sdk: `@a2a-js/sdk`'s own Express binding (jsonRpcHandler), DefaultRequestHandler,
 *   InMemoryTaskStore, push notifications on (as ours), and a minimal AgentExecutor that
 *   runs the same graph with the same stream options and publishes one artifact-update
 *   per token.
 * - fastify: a bare Fastify JSON endpoint that runs the graph the same way and returns
 *   the reply text: HTTP plus the graph, nothing of A2A (the limit).
 * - http: the same endpoint answering without running the graph (HTTP and JSON alone).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { pino } from 'pino';
import { MemorySaver } from '@langchain/langgraph';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { buildAgentCard, createServer, type StreamableGraph } from 'langgraph-a2a';
import { benchGraph, servedStreamOptions, userInput, type GraphName } from './graphs.js';
import { mainThreadCpuUs } from './thread-cpu.js';

// Every variant runs the graph as our server does (it sets this at start): LangChain's
// callbacks inline, not in the background.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

const [variant, graphName, store] = process.argv.slice(2) as [
  'ours' | 'ours-per-chunk' | 'sdk' | 'fastify' | 'http',
  GraphName,
  string?,
];
const graph = benchGraph(graphName);
const logger = pino({ level: 'warn' });

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  mediaType: 'text/plain',
  filename: '',
  metadata: {},
});

function lastAiText(values: unknown): string {
  const messages = (values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
  const last = messages.at(-1);
  return last && AIMessage.isInstance(last) ? last.text : '';
}

/** The smallest AgentExecutor a developer would write on the SDK for this graph. */
class GraphExecutor implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();
  constructor(private readonly graph: StreamableGraph) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const now = () => new Date().toISOString();
    const abort = new AbortController();
    this.running.set(taskId, abort);
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        history: [ctx.userMessage],
        artifacts: [],
        metadata: {},
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        metadata: {},
      }),
    );
    const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    let values: unknown;
    let streamed = false;
    try {
      const stream = await this.graph.stream(
        userInput(text, ctx.userMessage.messageId),
        servedStreamOptions(contextId, abort.signal),
      );
      for await (const item of stream) {
        const [, mode, chunk] = item as [string[], string, unknown];
        if (mode === 'values') values = chunk;
        if (mode !== 'messages') continue;
        const [message] = chunk as [BaseMessage];
        if (!AIMessageChunk.isInstance(message) || !message.text) continue;
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [textPart(message.text)],
              metadata: {},
              extensions: [],
            },
            append: streamed,
            lastChunk: false,
            metadata: {},
          }),
        );
        streamed = true;
      }
      const reply: Message = {
        messageId: randomUUID(),
        contextId,
        taskId,
        role: Role.ROLE_AGENT,
        parts: [textPart(lastAiText(values))],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, message: reply, timestamp: now() },
          metadata: {},
        }),
      );
    } finally {
      this.running.delete(taskId);
      bus.finished();
    }
  };

  cancelTask = async (taskId: string): Promise<void> => {
    this.running.get(taskId)?.abort();
  };
}

async function start(): Promise<string> {
  switch (variant) {
    case 'ours':
    case 'ours-per-chunk': {
      const app = await createServer({
        graph,
        store: store ?? 'memory',
        logger,
        coalesceDeltas: variant !== 'ours-per-chunk',
      });
      return app.listen({ port: 0, host: '127.0.0.1' });
    }
    case 'sdk': {
      graph.checkpointer = new MemorySaver();
      const card = buildAgentCard(
        {},
        { graphName: graphName, streaming: true, pushNotifications: true, legacyCompat: false },
        '',
      );
      const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new GraphExecutor(graph));
      const app = express();
      app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
      return new Promise((resolve) => {
        const server = app.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        );
      });
    }
    case 'fastify': {
      graph.checkpointer = new MemorySaver();
      const app = Fastify({ logger: false });
      app.post('/echo', async (request) => {
        const { text } = request.body as { text: string };
        let values: unknown;
        const stream = await graph.stream(userInput(text, randomUUID()), servedStreamOptions(randomUUID()));
        for await (const item of stream) {
          const [, mode, chunk] = item as [string[], string, unknown];
          if (mode === 'values') values = chunk;
        }
        return { text: lastAiText(values) };
      });
      return app.listen({ port: 0, host: '127.0.0.1' });
    }
    case 'http': {
      // The same route answering without running anything: what HTTP and JSON cost.
      const app = Fastify({ logger: false });
      app.post('/echo', async (request) => ({ text: `echo: ${(request.body as { text: string }).text}` }));
      return app.listen({ port: 0, host: '127.0.0.1' });
    }
    default: {
      const unreachable: never = variant;
      return unreachable;
    }
  }
}

const url = await start();
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'usage')
    process.send!({ cpu: process.cpuUsage(), mainCpuUs: mainThreadCpuUs(), mem: process.memoryUsage() });
  // A clean exit, so `--cpu-prof` writes its profile.
  if (m.cmd === 'exit') process.exit(0);
});
process.send!({ url });
