import type { FastifyRequest } from 'fastify';
import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { UnauthenticatedUser, defaultServerCallContextBuilder, type ServerCallContext } from '@a2a-js/sdk/server';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value || undefined;
}

/** The SDK's per-call context for one HTTP request. */
export function callContext(request: FastifyRequest, legacy: boolean): ServerCallContext {
  const extensionsHeader = legacy
    ? (header(request, LEGACY_HTTP_EXTENSION_HEADER) ?? header(request, HTTP_EXTENSION_HEADER))
    : header(request, HTTP_EXTENSION_HEADER);
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensionsHeader),
    user: new UnauthenticatedUser(),
    headers: request.headers,
    requestedVersion: header(request, A2A_VERSION_HEADER),
  });
}

/** The media type of a request, lower-cased, without parameters. */
export function mediaType(request: FastifyRequest): string | undefined {
  const raw = request.headers['content-type'];
  return raw ? raw.split(';', 1)[0]!.trim().toLowerCase() : undefined;
}
