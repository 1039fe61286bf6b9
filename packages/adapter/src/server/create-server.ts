import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { createLogger } from '../logger.js';
import { langGraphA2A, type A2APluginOptions } from './plugin.js';

export interface CreateServerOptions extends A2APluginOptions {
  /** The pino logger for the server and every run. @defaultValue JSON lines on stderr at LOG_LEVEL */
  logger?: Logger;
  /** Largest accepted request body in bytes. @defaultValue 10 MiB */
  bodyLimit?: number;
  /** Passed to Fastify as they are (except logger and bodyLimit). */
  fastify?: Omit<FastifyServerOptions, 'logger' | 'loggerInstance' | 'bodyLimit'>;
}

/** A Fastify instance serving `graph` as an A2A agent; call `listen()` on it. */
export async function createServer(options: CreateServerOptions): Promise<FastifyInstance> {
  const { logger, bodyLimit, fastify: fastifyOptions, ...pluginOptions } = options;
  const app: FastifyInstance = Fastify({
    ...(fastifyOptions as FastifyServerOptions),
    loggerInstance: (logger ?? createLogger()) as FastifyBaseLogger,
    bodyLimit: bodyLimit ?? 10 * 1024 * 1024,
  });
  await app.register(langGraphA2A, pluginOptions);
  return app;
}
