import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AgentCard } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { StreamResponse } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { PgRelay } from '../stores/pg-relay.js';
import { PushDeliveryService } from './push-sender.js';
import { refuseWebhookUrl } from './url-guard.js';
import type { Logger } from 'pino';
import { LangGraphA2AError } from '../errors.js';
import { LangGraphAgentExecutor } from '../executor/executor.js';
import { ensureCheckpointer, graphName, isStreamableGraph, type StreamableGraph } from '../executor/graph.js';
import type { IdsAndClock } from '../mapping/env.js';
import type { FilePartMapping } from '../mapping/inbound.js';
import { AdapterTaskStore } from '../stores/adapter-task-store.js';
import { openPersistence, type Persistence } from '../stores/persistence.js';
import { describeStore, parseStoreSetting, type StoreSetting } from '../stores/setting.js';
import { settleOrphans, type RecoveryPolicy } from './recovery.js';
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
  /**
   * Where tasks, push configs, checkpoints and message ids are kept: `memory`,
   * `sqlite:<file>` or `postgres://…` (a setting or an opened {@link Persistence}).
   * @defaultValue 'memory'
   */
  store?: string | StoreSetting | Persistence;
  /** What happens to tasks whose run was cut short by a crash. @defaultValue 'fail' */
  recovery?: RecoveryPolicy;
  /** This instance's id in the run ledger; a restarted instance with the same id settles its runs at once. @defaultValue a random id */
  instanceId?: string;
  /** How often running tasks are marked alive. @defaultValue 5000 */
  heartbeatMs?: number;
  /** After how long without a heartbeat another instance's run counts as orphaned. @defaultValue 3 × heartbeatMs */
  leaseMs?: number;
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
  /** Serve push notifications (webhooks). @defaultValue true */
  pushNotifications?: boolean;
  /**
   * Send the token deltas a model hands over within one turn of the event loop as one
   * artifact-update frame (lossless, in order; a token that arrives alone in its turn is
   * sent alone). Frame boundaries then follow how tokens are timed, so `false` gives one
   * frame per token chunk, as `runA2A` does for reproducible snapshots.
   * @defaultValue true
   */
  coalesceDeltas?: boolean;
  /**
   * Which webhook URLs are accepted. URLs resolving to loopback, link-local or private
   * addresses are refused unless their host is in `allowHosts`; `http:` only with `allowHttp`.
   * @defaultValue { allowHosts: [], allowHttp: false }
   */
  webhooks?: { allowHosts?: string[]; allowHttp?: boolean };
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
  store: z
    .union([
      z.string().transform((v, ctx) => {
        try {
          return parseStoreSetting(v);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
      z.custom<StoreSetting | Persistence>(
        (v) => typeof v === 'object' && v !== null && ('kind' in v || 'taskStore' in v),
      ),
    ])
    .default({ kind: 'memory' }),
  recovery: z.enum(['fail', 'resume']).default('fail'),
  instanceId: z.string().min(1).optional(),
  heartbeatMs: z.number().int().positive().default(5000),
  leaseMs: z.number().int().positive().optional(),
  filePartMapping: z.enum(['inbox-only', 'content-blocks']).default('inbox-only'),
  idsAndClock: z
    .custom<IdsAndClock>((v) => typeof v === 'object' && v !== null && 'newId' in v && 'now' in v)
    .optional(),
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  healthz: z.boolean().default(true),
  busyContext: z.enum(['reject', 'enqueue', 'interrupt']).default('reject'),
  cancelOnDisconnect: z.boolean().default(false),
  pushNotifications: z.boolean().default(true),
  coalesceDeltas: z.boolean().default(true),
  webhooks: z
    .object({ allowHosts: z.array(z.string().min(1)).default([]), allowHttp: z.boolean().default(false) })
    .default({ allowHosts: [], allowHttp: false }),
});

/** What the plugin exposes on the Fastify instance as `fastify.a2a`. */
export interface A2ADecoration {
  card: AgentCard;
  requestHandler: LangGraphRequestHandler;
  executor: LangGraphAgentExecutor;
  taskStore: TaskStore;
  persistence: Persistence;
  /** The webhook delivery worker, when push notifications are on. */
  pushDelivery: PushDeliveryService | undefined;
  /** Settles orphaned runs now (it also runs at start and after every heartbeat). */
  settleOrphans: () => Promise<string[]>;
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
  const ownsPersistence = !('taskStore' in options.store);
  const persistence = 'taskStore' in options.store ? options.store : await openPersistence(options.store);
  if (graph.checkpointer === undefined || graph.checkpointer === null) graph.checkpointer = persistence.checkpointer;
  ensureCheckpointer(graph);
  logger.info({ store: describeStore(persistence.setting) }, 'store opened');

  const taskStore = new AdapterTaskStore(persistence.taskStore, persistence.keepsTerminalStates);
  const eventBusManager = new DefaultExecutionEventBusManager();
  const instanceId = options.instanceId ?? randomUUID();
  // Several instances on one PostgreSQL database relay live events and cancels.
  const relay =
    persistence.setting.kind === 'postgres' ? new PgRelay(persistence.setting.url, instanceId, logger) : undefined;
  await relay?.start();
  const executor = new LangGraphAgentExecutor({
    eventBusManager,
    ledger: persistence.ledger,
    instanceId,
    // With a durable store, a step's checkpoint is written before the next step starts,
    // so a crash loses at most the step that was running.
    durability: persistence.setting.kind === 'memory' ? undefined : 'sync',
    onEvent: relay
      ? (taskId, e) =>
          relay.publish(
            taskId,
            StreamResponse.toJSON({ payload: { $case: e.kind, value: e.data } as StreamResponse['payload'] }),
          )
      : undefined,
    graph,
    logger,
    filePartMapping: options.filePartMapping,
    idsAndClock: options.idsAndClock,
    onTaskMetadata: (taskId, metadata) => taskStore.mergeMetadata(taskId, metadata),
    onRunEnded: (taskId) => taskStore.forget(taskId),
    coalesceDeltas: options.coalesceDeltas,
  });
  // With a database store, tasks running here are read from memory, not queried per event.
  if (persistence.setting.kind !== 'memory') taskStore.keepLiveTasks((taskId) => executor.isRunning(taskId));
  const card = buildAgentCard(
    options.card ?? {},
    {
      graphName: graphName(graph),
      streaming: true,
      pushNotifications: options.pushNotifications,
      legacyCompat: options.legacyCompat,
    },
    options.prefix,
  );
  const pushDelivery = options.pushNotifications
    ? new PushDeliveryService({
        store: persistence.pushStore,
        taskStore,
        outbox: persistence.pushOutbox,
        instanceId,
        urlPolicy: options.webhooks,
        logger,
      })
    : undefined;
  await pushDelivery?.start();
  const requestHandler = new LangGraphRequestHandler({
    inner: new DefaultRequestHandler(card, taskStore, executor, eventBusManager, persistence.pushStore, pushDelivery),
    checkWebhookUrl: (url) => refuseWebhookUrl(url, options.webhooks),
    taskStore,
    executor,
    logger,
    busyContext: options.busyContext,
    cancelOnDisconnect: options.cancelOnDisconnect,
    eventBusManager,
    relay,
  });
  relay?.onCancel((taskId) => {
    if (!executor.runningTaskIds.includes(taskId)) return;
    void requestHandler
      .cancelTask({ id: taskId, tenant: '', metadata: {} }, new ServerCallContext())
      .catch((err: unknown) => logger.warn({ err, taskId }, 'relayed cancel failed'));
  });
  const settle = () =>
    settleOrphans({
      ledger: persistence.ledger,
      taskStore,
      executor,
      eventBusManager,
      policy: options.recovery,
      leaseMs: options.leaseMs ?? options.heartbeatMs * 3,
      logger,
      onFailed: relay
        ? (task) =>
            relay.publish(
              task.id,
              StreamResponse.toJSON({
                payload: {
                  $case: 'statusUpdate',
                  value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: {} },
                },
              }),
            )
        : undefined,
    });
  fastify.decorate('a2a', {
    card,
    requestHandler,
    executor,
    taskStore,
    persistence,
    pushDelivery,
    settleOrphans: settle,
  } satisfies A2ADecoration);

  // Runs cut short by a crash are settled before the server takes requests, then the
  // heartbeat keeps this instance's runs alive and settles other instances' orphans.
  await settle();
  const heartbeat = setInterval(() => {
    executor
      .heartbeat()
      .then(settle)
      .catch((err: unknown) => logger.warn({ err }, 'heartbeat failed'));
  }, options.heartbeatMs);
  heartbeat.unref();
  fastify.addHook('onClose', async () => {
    clearInterval(heartbeat);
    await pushDelivery?.stop();
    await relay?.stop();
    if (ownsPersistence) await persistence.close();
  });

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
