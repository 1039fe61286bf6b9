import { getWriter, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';
import {
  HELPER_TAG,
  dataPayloadSchema,
  filePayloadSchema,
  messagePayloadSchema,
  taskMetadataPayloadSchema,
  type DataPayload,
  type FilePayload,
  type HelperEvent,
  type MessagePayload,
  type TaskMetadataPayload,
} from './schema.js';

/** Thrown synchronously inside the node when a helper gets an invalid payload. */
export class StreamHelperError extends Error {
  override readonly name = 'StreamHelperError';
  constructor(
    message: string,
    readonly issues: z.core.$ZodIssue[],
  ) {
    super(message);
  }
}

type Writer = (chunk: unknown) => void;

function resolveWriter(config: LangGraphRunnableConfig | undefined): Writer | undefined {
  // The explicit config wins; getWriter() reads the node's config from async local storage,
  // and throws when no run is active (a node called directly in a unit test).
  if (config?.writer) return config.writer;
  try {
    return getWriter();
  } catch {
    return undefined;
  }
}

function emit<T extends HelperEvent['type']>(
  type: T,
  schema: z.ZodType,
  payload: unknown,
  config: LangGraphRunnableConfig | undefined,
): boolean {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw new StreamHelperError(`invalid ${type} payload: ${z.prettifyError(parsed.error)}`, parsed.error.issues);
  }
  const writer = resolveWriter(config);
  // Outside a graph run (a node called directly in a unit test) there is no writer: the
  // helpers are then no-ops, so nodes stay testable without a server. Inside a run that
  // does not stream `custom` (graph.invoke), LangGraph's writer drops the payload.
  if (!writer) return false;
  writer({ [HELPER_TAG]: 1, type, payload: parsed.data });
  return true;
}

/**
 * Sends a file to the client as an artifact (a file part by URL or base64 bytes).
 * Returns false when there is no writer (the node is not running inside a graph run).
 */
export function emitFile(file: FilePayload, config?: LangGraphRunnableConfig): boolean {
  return emit('file', filePayloadSchema, file, config);
}

/** Sends structured JSON to the client as an artifact with a data part. */
export function emitData(data: DataPayload, config?: LangGraphRunnableConfig): boolean {
  return emit('data', dataPayloadSchema, data, config);
}

/** Sends an intermediate agent message (a working-status update with this text). */
export function emitMessage(message: MessagePayload | string, config?: LangGraphRunnableConfig): boolean {
  const payload = typeof message === 'string' ? { text: message } : message;
  return emit('message', messagePayloadSchema, payload, config);
}

/** Merges keys into the task's metadata (shallow). Keys under the reserved prefix are rejected. */
export function emitTaskMetadata(metadata: TaskMetadataPayload['metadata'], config?: LangGraphRunnableConfig): boolean {
  return emit('task-metadata', taskMetadataPayloadSchema, { metadata }, config);
}
