import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { UnauthenticatedUser, defaultServerCallContextBuilder, type ServerCallContext } from '@a2a-js/sdk/server';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value || undefined;
}

/** Key of `ServerCallContext.state` holding an AbortSignal that fires when the client goes away. */
export const CLIENT_GONE_SIGNAL = 'langgraph-a2a:clientGone';

/** The signal of a call context, aborted when its client disconnected before the response ended. */
export function clientGoneSignal(context: ServerCallContext): AbortSignal | undefined {
  const signal = context.state.get(CLIENT_GONE_SIGNAL);
  return signal instanceof AbortSignal ? signal : undefined;
}

/** The SDK's per-call context for one HTTP request. */
export function callContext(request: FastifyRequest, reply: FastifyReply, legacy: boolean): ServerCallContext {
  const extensionsHeader = legacy
    ? (header(request, LEGACY_HTTP_EXTENSION_HEADER) ?? header(request, HTTP_EXTENSION_HEADER))
    : header(request, HTTP_EXTENSION_HEADER);
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensionsHeader),
    user: new UnauthenticatedUser(),
    headers: request.headers,
    requestedVersion: header(request, A2A_VERSION_HEADER),
  });
  // A pending stream cannot be closed from outside (an async generator's return() waits
  // for the pending next()), so a disconnect is also announced through this signal.
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  context.state.set(CLIENT_GONE_SIGNAL, gone.signal);
  return context;
}

/** The media type of a request, lower-cased, without parameters. */
export function mediaType(request: FastifyRequest): string | undefined {
  const raw = request.headers['content-type'];
  return raw ? raw.split(';', 1)[0]!.trim().toLowerCase() : undefined;
}
