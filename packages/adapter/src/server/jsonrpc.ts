import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { LEGACY_METHOD_TASKS_RESUBSCRIBE, isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { formatSSEErrorEvent } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import { callContext, mediaType } from './call-context.js';
import { sendSse } from './sse.js';

type RpcId = string | number | null;
interface RpcResponse {
  jsonrpc: string;
  id: RpcId;
  result?: unknown;
  error?: unknown;
}

export interface JsonRpcRouteOptions {
  path: string;
  requestHandler: A2ARequestHandler;
  legacyCompat: boolean;
  logger: Logger;
}

const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

function rpcId(body: unknown): RpcId {
  const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

const LEGACY_PAUSED = new Set(['input-required', 'auth-required']);

/**
 * v0.3's `final` says the stream of this interaction ends here. The SDK's translation
 * sets it only for terminal states, but a task that pauses for input also ends the
 * stream, and v0.3 clients wait for `final` before they show the question.
 */
function markLegacyFinal(frame: RpcResponse): RpcResponse {
  const result = frame.result as { kind?: string; final?: boolean; status?: { state?: string } } | undefined;
  if (result?.kind === 'status-update' && LEGACY_PAUSED.has(result.status?.state ?? '') && !result.final) {
    return { ...frame, result: { ...result, final: true } };
  }
  return frame;
}

/** JSON-RPC 2.0 §4: `jsonrpc` is "2.0", `method` a string, `id` a string, an integer or null. */
function isEnvelopeValid(body: Record<string, unknown>): boolean {
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || body.method === '') return false;
  if (!('id' in body)) return true;
  const id = body.id;
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

function methodOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<T, void, undefined> {
  return typeof (value as AsyncGenerator<T> | undefined)?.[Symbol.asyncIterator] === 'function';
}

/**
 * JSON-RPC 2.0 over HTTP, with SSE for the streaming methods. v1.0 methods go to the
 * SDK's JsonRpcTransportHandler; with the v0.3 layer on, v0.3 method names (and
 * unknown ones, so they get a v0.3-shaped error) go to its legacy twin.
 */
export function registerJsonRpcRoute(app: FastifyInstance, opts: JsonRpcRouteOptions): void {
  const v1 = new JsonRpcTransportHandler(opts.requestHandler);
  const legacy = opts.legacyCompat ? new LegacyJsonRpcTransportHandler(opts.requestHandler) : undefined;

  const sendError = (reply: FastifyReply, status: number, id: RpcId, code: number, message: string) =>
    reply.code(status).type('application/json').send({ jsonrpc: '2.0', id, error: { code, message } });

  app.post(opts.path, async (request: FastifyRequest, reply: FastifyReply) => {
    const type = mediaType(request);
    if (type === undefined || !JSON_TYPES.has(type)) {
      const error = JsonRpcTransportHandler.mapToJSONRPCError(
        new ContentTypeNotSupportedError(`Unsupported Content-Type "${type ?? ''}"; expected application/json.`),
      );
      return reply.code(415).type('application/json').send({ jsonrpc: '2.0', id: null, error });
    }
    let body: unknown;
    try {
      body = JSON.parse((request.body as Buffer | undefined)?.toString('utf8') ?? '');
    } catch {
      return sendError(reply, 400, null, A2A_ERROR_CODE.PARSE_ERROR, 'Invalid JSON payload.');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      // Batches are not part of A2A; a bare value is not a request.
      return sendError(reply, 400, null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid JSON-RPC Request.');
    }
    if (!isEnvelopeValid(body as Record<string, unknown>)) {
      return sendError(reply, 200, rpcId(body), A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid JSON-RPC Request.');
    }
    const method = methodOf(body);
    const useLegacy = legacy !== undefined && (isLegacyJsonRpcMethod(method) || !isV1JsonRpcMethod(method));
    const mapError = useLegacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const id = rpcId(body);
    const context = callContext(request, reply, useLegacy);
    let response: RpcResponse | AsyncGenerator<RpcResponse, void, undefined>;
    try {
      validateVersion(context.requestedVersion, await opts.requestHandler.getAgentCard(), 'JSONRPC');
      response = useLegacy
        ? await legacy!.handle(body as Record<string, unknown>, context)
        : await v1.handle(body as Record<string, unknown>, context);
    } catch (error) {
      return reply
        .code(200)
        .type('application/json')
        .send({ jsonrpc: '2.0', id, error: mapError(error) });
    }
    if (context.activatedExtensions) {
      reply.header(useLegacy ? 'X-A2A-Extensions' : 'A2A-Extensions', [...context.activatedExtensions].join(','));
    }
    if (!isAsyncGenerator<RpcResponse>(response)) {
      return reply.code(200).type('application/json').send(response);
    }
    // v0.3 clients expect an SSE stream from tasks/resubscribe even for an error.
    const errorAsFrame = useLegacy && method === LEGACY_METHOD_TASKS_RESUBSCRIBE;
    await sendSse(request, reply, response, {
      toJson: useLegacy ? markLegacyFinal : (frame) => frame,
      toErrorFrame: (error) => ({ jsonrpc: '2.0', id, error: mapError(error) }),
      onEarlyError: (error) => {
        const envelope = { jsonrpc: '2.0', id, error: mapError(error) };
        if (errorAsFrame) {
          reply.code(200).type('text/event-stream').send(formatSSEErrorEvent(envelope));
        } else {
          reply.code(200).type('application/json').send(envelope);
        }
      },
      logger: opts.logger,
    });
    return reply;
  });
}
