import { helperEventSchema, isHelperEvent, type HelperEvent } from '@langgraph-a2a/stream-helpers';
import type { Part } from '@a2a-js/sdk';
import { parts } from './events.js';

/** What one `custom`-mode chunk means to the server. */
export type CustomChunkResult =
  { kind: 'helper'; event: HelperEvent } | { kind: 'invalid'; reason: string } | { kind: 'ignored' };

/**
 * Classifies a `custom`-mode chunk. Payloads written by the stream-helpers are
 * validated again here (any writer can write anything); everything else is not ours
 * and is ignored, never fatal to the run.
 */
export function mapCustomChunk(chunk: unknown): CustomChunkResult {
  if (!isHelperEvent(chunk)) return { kind: 'ignored' };
  const parsed = helperEventSchema.safeParse(chunk);
  if (!parsed.success) return { kind: 'invalid', reason: parsed.error.message };
  return { kind: 'helper', event: parsed.data };
}

type FileEvent = Extract<HelperEvent, { type: 'file' }>['payload'];

export function filePart(file: FileEvent): Part {
  const filename = file.filename ?? '';
  if (file.url !== undefined) return parts.fileUrl(file.url, file.mediaType, filename);
  return parts.fileBytes(file.bytes ?? '', file.mediaType, filename);
}
