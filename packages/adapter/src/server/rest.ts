import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  taskStateFromJSON,
  type ListTasksRequest,
} from '@a2a-js/sdk';
import { validateVersion, type A2ARequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  UnsupportedOperationError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type { Logger } from 'pino';
import { callContext, mediaType } from './call-context.js';
import { sendSse } from './sse.js';

export interface RestRoutesOptions {
  prefix: string;
  requestHandler: A2ARequestHandler;
  logger: Logger;
}

const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

/** One error → one HTTP status and google.rpc.Status body; 415 for a wrong content type. */
function sendRestError(reply: FastifyReply, error: unknown): FastifyReply {
  const status = error instanceof ContentTypeNotSupportedError ? 415 : restStatusFor(error);
  return reply.code(status).type('application/json').send(toRestErrorBody(error, status));
}

function jsonBody(request: FastifyRequest): Record<string, unknown> {
  const type = mediaType(request);
  const raw = request.body as Buffer | undefined;
  if (!raw || raw.length === 0) return {};
  if (type === undefined || !JSON_TYPES.has(type)) {
    throw new ContentTypeNotSupportedError(
      `Unsupported Content-Type "${type ?? ''}"; expected application/json or application/a2a+json.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw?.toString('utf8') ?? '');
  } catch {
    throw new RequestMalformedError('Invalid JSON payload.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RequestMalformedError('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

function nonNegativeInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new RequestMalformedError(`${name} must be a non-negative integer`);
  return n;
}

function sendMessageParams(request: FastifyRequest): SendMessageRequest {
  const params = SendMessageRequest.fromJSON(jsonBody(request));
  if (!params.message) throw new RequestMalformedError('message is required');
  if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return params;
}

function listParams(query: Record<string, string | undefined>): ListTasksRequest {
  let status = TaskState.TASK_STATE_UNSPECIFIED;
  if (query.status) {
    status = taskStateFromJSON(Number.isNaN(Number(query.status)) ? query.status : Number(query.status));
    if (status === TaskState.UNRECOGNIZED) throw new RequestMalformedError(`unknown task state "${query.status}"`);
  }
  return {
    tenant: '',
    contextId: query.contextId ?? '',
    status,
    pageSize: nonNegativeInt(query.pageSize, 'pageSize'),
    pageToken: query.pageToken ?? '',
    historyLength: nonNegativeInt(query.historyLength, 'historyLength'),
    statusTimestampAfter: query.statusTimestampAfter || undefined,
    includeArtifacts: query.includeArtifacts === 'true',
  };
}

/**
 * HTTP+JSON/REST binding of A2A v1.0. Responses are `application/json`; a body with
 * another content type gets 415. Paths follow the spec (`/message:send`,
 * `/tasks/{id}:cancel`, ...); the `{id}:verb` segments are split here because a
 * route parameter cannot be followed by a literal colon.
 */
export function registerRestRoutes(app: FastifyInstance, opts: RestRoutesOptions): void {
  const { requestHandler: handler, prefix } = opts;

  const context = async (request: FastifyRequest, reply: FastifyReply): Promise<ServerCallContext> => {
    const ctx = callContext(request, reply, false);
    validateVersion(ctx.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
    return ctx;
  };
  const requireStreaming = async () => {
    if (!(await handler.getAgentCard()).capabilities?.streaming) {
      throw new UnsupportedOperationError('Agent does not support streaming');
    }
  };
  const stream = (
    request: FastifyRequest,
    reply: FastifyReply,
    events: AsyncGenerator<StreamResponse, void, undefined>,
  ) =>
    sendSse(request, reply, events, {
      toJson: (e) => StreamResponse.toJSON(e),
      toErrorFrame: (e) => toRestErrorBody(e, restStatusFor(e)),
      onEarlyError: (e) => void sendRestError(reply, e),
      logger: opts.logger,
    });

  type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  const route = (method: 'GET' | 'POST' | 'DELETE', path: string, fn: Handler) =>
    app.route({
      method,
      url: prefix + path,
      handler: async (request, reply) => {
        try {
          const result = await fn(request, reply);
          if (reply.sent) return reply;
          if (result === undefined) return reply.code(204).send();
          return reply.code(200).type('application/json').send(result);
        } catch (error) {
          if (reply.sent) {
            opts.logger.warn({ err: error }, 'error after the response was sent');
            return reply;
          }
          return sendRestError(reply, error);
        }
      },
    });

  route('POST', '/message::send', async (request, reply) => {
    const ctx = await context(request, reply);
    const result = await handler.sendMessage(sendMessageParams(request), ctx);
    return 'messageId' in result ? { message: Message.toJSON(result) } : { task: Task.toJSON(result) };
  });

  route('POST', '/message::stream', async (request, reply) => {
    const ctx = await context(request, reply);
    await requireStreaming();
    await stream(request, reply, handler.sendMessageStream(sendMessageParams(request), ctx));
  });

  route('GET', '/tasks', async (request, reply) => {
    const ctx = await context(request, reply);
    const params = listParams(request.query as Record<string, string | undefined>);
    const result = await handler.listTasks(params, ctx);
    const json = ListTasksResponse.toJSON(result) as { tasks?: Array<Record<string, unknown>> };
    if (!params.includeArtifacts) for (const t of json.tasks ?? []) delete t.artifacts;
    return json;
  });

  const taskVerb = (segment: string): { id: string; verb: string | undefined } => {
    const i = segment.lastIndexOf(':');
    return i < 0 ? { id: segment, verb: undefined } : { id: segment.slice(0, i), verb: segment.slice(i + 1) };
  };
  const subscribe = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const ctx = await context(request, reply);
    await requireStreaming();
    await stream(request, reply, handler.resubscribe({ id, tenant: '' }, ctx));
  };
  const unknownPath = (request: FastifyRequest) =>
    new UnsupportedOperationError(`No A2A operation at ${request.method} ${request.url}`);

  route('GET', '/tasks/:task', async (request, reply) => {
    const { id, verb } = taskVerb((request.params as { task: string }).task);
    if (verb === 'subscribe') return subscribe(request, reply, id);
    if (verb !== undefined) throw unknownPath(request);
    const ctx = await context(request, reply);
    const historyLength = nonNegativeInt((request.query as { historyLength?: string }).historyLength, 'historyLength');
    return Task.toJSON(await handler.getTask({ id, tenant: '', historyLength }, ctx));
  });

  route('POST', '/tasks/:task', async (request, reply) => {
    const { id, verb } = taskVerb((request.params as { task: string }).task);
    if (verb === 'subscribe') return subscribe(request, reply, id);
    if (verb !== 'cancel') throw unknownPath(request);
    const ctx = await context(request, reply);
    jsonBody(request);
    return Task.toJSON(await handler.cancelTask({ id, tenant: '', metadata: {} }, ctx));
  });

  route('POST', '/tasks/:taskId/pushNotificationConfigs', async (request, reply) => {
    const ctx = await context(request, reply);
    const { taskId } = request.params as { taskId: string };
    const config = TaskPushNotificationConfig.fromJSON({ ...jsonBody(request), taskId });
    return TaskPushNotificationConfig.toJSON(await handler.createTaskPushNotificationConfig(config, ctx));
  });

  route('GET', '/tasks/:taskId/pushNotificationConfigs', async (request, reply) => {
    const ctx = await context(request, reply);
    const { taskId } = request.params as { taskId: string };
    const result = await handler.listTaskPushNotificationConfigs(
      { taskId, pageSize: 0, pageToken: '', tenant: '' },
      ctx,
    );
    return ListTaskPushNotificationConfigsResponse.toJSON(result);
  });

  route('GET', '/tasks/:taskId/pushNotificationConfigs/:configId', async (request, reply) => {
    const ctx = await context(request, reply);
    const { taskId, configId } = request.params as { taskId: string; configId: string };
    const result = await handler.getTaskPushNotificationConfig({ taskId, id: configId, tenant: '' }, ctx);
    return TaskPushNotificationConfig.toJSON(result);
  });

  route('DELETE', '/tasks/:taskId/pushNotificationConfigs/:configId', async (request, reply) => {
    const ctx = await context(request, reply);
    const { taskId, configId } = request.params as { taskId: string; configId: string };
    await handler.deleteTaskPushNotificationConfig({ taskId, id: configId, tenant: '' }, ctx);
    return undefined;
  });

  route('GET', '/extendedAgentCard', async (request, reply) => {
    const ctx = await context(request, reply);
    return AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, ctx));
  });
}
