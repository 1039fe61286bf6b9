import type { FastifyReply, FastifyRequest } from 'fastify';
import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import type { Logger } from 'pino';

export interface SseOptions<T> {
  /** Serializes one stream item to the JSON object sent as `data:`. */
  toJson: (item: T) => unknown;
  /** The error frame sent when the stream throws after it started. */
  toErrorFrame: (error: unknown) => unknown;
  /** Answers an error raised before the first frame as a plain HTTP response. */
  onEarlyError: (error: unknown) => void;
  logger: Logger;
}

/**
 * Writes an async stream as Server-Sent Events.
 *
 * The first item is pulled before any header is sent, so an error at the start
 * (unknown task, terminal task) is answered as a proper error response instead of a
 * 200 stream with one error frame. When the client goes away, the stream is closed
 * with `return()`, which releases the consumer's queue; the run itself goes on and
 * stays reachable through SubscribeToTask.
 */
export async function sendSse<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  stream: AsyncGenerator<T, void, undefined>,
  opts: SseOptions<T>,
): Promise<void> {
  let first: IteratorResult<T>;
  try {
    first = await stream.next();
  } catch (error) {
    opts.onEarlyError(error);
    return;
  }

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...SSE_HEADERS, 'X-Accel-Buffering': 'no' });
  let clientGone = false;
  const onClose = () => {
    if (res.writableFinished) return;
    clientGone = true;
    opts.logger.debug({ reqId: request.id }, 'SSE client disconnected');
    void stream.return(undefined).catch(() => undefined);
  };
  res.on('close', onClose);
  try {
    if (!first.done) res.write(formatSSEEvent(opts.toJson(first.value)));
    if (!first.done) {
      for (;;) {
        const next = await stream.next();
        if (next.done || clientGone) break;
        res.write(formatSSEEvent(opts.toJson(next.value)));
      }
    }
  } catch (error) {
    opts.logger.warn({ err: error, reqId: request.id }, 'stream failed after it started');
    if (!clientGone && !res.writableEnded) res.write(formatSSEErrorEvent(opts.toErrorFrame(error)));
  } finally {
    res.off('close', onClose);
    if (clientGone) res.destroy();
    else if (!res.writableEnded) res.end();
    if (clientGone) await stream.return(undefined).catch(() => undefined);
  }
}
