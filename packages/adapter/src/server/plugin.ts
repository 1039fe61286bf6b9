import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AgentCard } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import { LangGraphA2AError } from '../errors.js';
import { LangGraphAgentExecutor } from '../executor/executor.js';
import { ensureCheckpointer, graphName, isStreamableGraph, type StreamableGraph } from '../executor/graph.js';
import type { IdsAndClock } from '../mapping/env.js';
import type { FilePartMapping } from '../mapping/inbound.js';
import { AdapterTaskStore } from '../stores/adapter-task-store.js';
import {
  AGENT_CARD_PATH,
  JSONRPC_PATH,
  REST_PATH,
  buildAgentCard,
  cardOptionsSchema,
  renderCard,
  type CardOptions,
} from './card.js';
import { registerJsonRpcRoute } from './jsonrpc.js';
import { registerRestRoutes } from './rest.js';
import { LangGraphRequestHandler, type BusyContextPolicy } from './request-handler.js';

export interface A2APluginOptions {
  /** The compiled LangGraph graph to serve. */
  graph: StreamableGraph;
  /** What the agent card says; name, description and skills default from the graph. */
  card?: CardOptions;
  /** Where the A2A endpoints are mounted: `<prefix>/jsonrpc` and `<prefix>/rest`. @defaultValue '/a2a' */
  prefix?: string;
  /**
   * The public base URL clients reach this server at (scheme, host, port), used for the
   * interface URLs in the agent card. @defaultValue the scheme and Host of each card request
   */
  publicUrl?: string;
  /** Serve v0.3 clients too (JSON-RPC methods and card fields). @defaultValue true */
  legacyCompat?: boolean;
  /** Where tasks are kept. @defaultValue an in-memory store */
  taskStore?: TaskStore;
  /** How inbound file parts reach `state.messages`. @defaultValue 'inbox-only' */
  filePartMapping?: FilePartMapping;
  /** Ids and clock of events (tests and recordings). @defaultValue random UUIDs, wall clock */
  idsAndClock?: IdsAndClock;
  /** How long shutdown waits for running graphs before it stops them. @defaultValue 10000 */
  shutdownGraceMs?: number;
  /** Serve `GET /healthz`. @defaultValue true */
  healthz?: boolean;
  /** What a message for a context whose task is still running does. @defaultValue 'reject' */
  busyContext?: BusyContextPolicy;
  /** Cancel a task when its streaming client disconnects before it ends. @defaultValue false */
  cancelOnDisconnect?: boolean;
}

const optionsSchema = z.object({
  graph: z.custom<StreamableGraph>(isStreamableGraph, {
    message: 'graph must be a compiled LangGraph graph (it has no stream())',
  }),
  card: cardOptionsSchema.optional(),
  prefix: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'prefix must be empty or start with "/" and not end with "/"')
    .default('/a2a'),
  publicUrl: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  legacyCompat: z.boolean().default(true),
  taskStore: z.custom<TaskStore>((v) => typeof v === 'object' && v !== null && 'save' in v && 'load' in v).optional(),
  filePartMapping: z.enum(['inbox-only', 'content-blocks']).default('inbox-only'),
  idsAndClock: z
    .custom<IdsAndClock>((v) => typeof v === 'object' && v !== null && 'newId' in v && 'now' in v)
    .optional(),
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  healthz: z.boolean().default(true),
  busyContext: z.enum(['reject', 'enqueue', 'interrupt']).default('reject'),
  cancelOnDisconnect: z.boolean().default(false),
});

/** What the plugin exposes on the Fastify instance as `fastify.a2a`. */
export interface A2ADecoration {
  card: AgentCard;
  requestHandler: LangGraphRequestHandler;
  executor: LangGraphAgentExecutor;
  taskStore: TaskStore;
}

declare module 'fastify' {
  interface FastifyInstance {
    a2a: A2ADecoration;
  }
}

export function parsePluginOptions(options: A2APluginOptions) {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new LangGraphA2AError('INVALID_OPTIONS', `invalid langgraph-a2a options: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

const plugin: FastifyPluginAsync<A2APluginOptions> = async (fastify, rawOptions) => {
  const options = parsePluginOptions(rawOptions);
  const logger = fastify.log as unknown as Logger;
  const { graph } = options;
  ensureCheckpointer(graph);

  const taskStore = new AdapterTaskStore(options.taskStore ?? new InMemoryTaskStore());
  const eventBusManager = new DefaultExecutionEventBusManager();
  const executor = new LangGraphAgentExecutor({
    eventBusManager,
    graph,
    logger,
    filePartMapping: options.filePartMapping,
    idsAndClock: options.idsAndClock,
    onTaskMetadata: (taskId, metadata) => taskStore.mergeMetadata(taskId, metadata),
  });
  const card = buildAgentCard(
    options.card ?? {},
    { graphName: graphName(graph), streaming: true, pushNotifications: false, legacyCompat: options.legacyCompat },
    options.prefix,
  );
  const requestHandler = new LangGraphRequestHandler({
    inner: new DefaultRequestHandler(card, taskStore, executor, eventBusManager),
    taskStore,
    executor,
    logger,
    busyContext: options.busyContext,
    cancelOnDisconnect: options.cancelOnDisconnect,
  });
  fastify.decorate('a2a', { card, requestHandler, executor, taskStore } satisfies A2ADecoration);

  const baseUrl = (request: FastifyRequest) => options.publicUrl ?? `${request.protocol}://${request.host}`;

  // Routes live in their own encapsulated context: the raw-body parser and the
  // error handler below must not leak into the application that mounts the plugin.
  await fastify.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((error, _request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 500) logger.error({ err: error }, 'request failed');
      return reply
        .code(status)
        .type('application/json')
        .send({
          error: {
            code: status,
            status: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL',
            message: status >= 500 ? 'Internal error' : (error as Error).message,
          },
        });
    });

    scope.get(AGENT_CARD_PATH, async (request, reply) =>
      reply
        .type('application/json')
        .header('Cache-Control', 'public, max-age=300')
        .send(renderCard(card, baseUrl(request), options.legacyCompat)),
    );
    if (options.healthz) {
      scope.get('/healthz', async () => ({ status: 'ok', runningTasks: executor.runningTaskIds.length }));
    }
    registerJsonRpcRoute(scope, {
      path: options.prefix + JSONRPC_PATH,
      requestHandler,
      legacyCompat: options.legacyCompat,
      logger,
    });
    registerRestRoutes(scope, { prefix: options.prefix + REST_PATH, requestHandler, logger });
  });

  // In-flight runs get a grace period to finish; what is still running then is stopped
  // and its task ends `failed` with a clear message, which also ends its streams.
  fastify.addHook('preClose', async () => {
    const running = executor.runningTaskIds.length;
    if (running === 0) return;
    logger.info({ running, graceMs: options.shutdownGraceMs }, 'waiting for running graphs before shutdown');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      executor.whenIdle().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), options.shutdownGraceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      logger.warn({ tasks: executor.runningTaskIds }, 'stopping graphs still running at shutdown');
      executor.abortAll();
      await executor.whenIdle();
    }
  });
};

/**
 * The langgraph-a2a Fastify plugin: serves one compiled graph as an A2A agent
 * (JSON-RPC + SSE, HTTP+JSON/REST, the agent card, `/healthz`) inside any Fastify app.
 */
export const langGraphA2A = fp(plugin, { fastify: '5.x', name: 'langgraph-a2a' });
