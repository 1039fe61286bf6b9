import { z } from 'zod';

/**
 * Every payload the helpers write carries this tag, so the server can tell
 * helper events from any other custom-stream payload a graph writes.
 */
export const HELPER_TAG = 'langgraph-a2a' as const;

/**
 * Metadata keys under this prefix belong to the server (task ids, interrupt
 * bookkeeping, stream markers). Graph code MUST NOT set them.
 */
export const RESERVED_PREFIX = 'langgraph-a2a:' as const;

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const metadata = z.record(z.string(), jsonValue);

const noReservedKeys = (value: Record<string, unknown> | undefined): boolean =>
  value === undefined || Object.keys(value).every((key) => !key.startsWith(RESERVED_PREFIX));
const reservedMessage = { message: `metadata keys starting with "${RESERVED_PREFIX}" are reserved for the server` };

const artifactFields = {
  /** Stable id; chunks with the same id build one artifact. Defaults to a generated id. */
  artifactId: z.string().min(1).optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  /** Append these parts to an artifact already sent with the same id. */
  append: z.boolean().default(false),
  /** This is the last chunk of the artifact. */
  lastChunk: z.boolean().default(true),
  metadata: metadata.optional().refine(noReservedKeys, reservedMessage),
};

export const filePayloadSchema = z
  .object({
    ...artifactFields,
    /** Where the file can be fetched from. Exactly one of `url` and `bytes`. */
    url: z.string().url().optional(),
    /** The file content, base64-encoded. Exactly one of `url` and `bytes`. */
    bytes: z.string().base64().optional(),
    mediaType: z.string().min(1).default('application/octet-stream'),
    filename: z.string().optional(),
  })
  .refine((f) => (f.url === undefined) !== (f.bytes === undefined), {
    message: 'a file needs exactly one of url or bytes (base64)',
  });

export const dataPayloadSchema = z.object({
  ...artifactFields,
  data: jsonValue,
});

export const messagePayloadSchema = z.object({
  text: z.string().min(1),
  metadata: metadata.optional().refine(noReservedKeys, reservedMessage),
});

export const taskMetadataPayloadSchema = z.object({
  metadata: metadata.refine(noReservedKeys, reservedMessage),
});

/** The custom-stream payload as it travels from a node to the server. */
export const helperEventSchema = z.discriminatedUnion('type', [
  z.object({ [HELPER_TAG]: z.literal(1), type: z.literal('file'), payload: filePayloadSchema }),
  z.object({ [HELPER_TAG]: z.literal(1), type: z.literal('data'), payload: dataPayloadSchema }),
  z.object({ [HELPER_TAG]: z.literal(1), type: z.literal('message'), payload: messagePayloadSchema }),
  z.object({ [HELPER_TAG]: z.literal(1), type: z.literal('task-metadata'), payload: taskMetadataPayloadSchema }),
]);

export type FilePayload = z.input<typeof filePayloadSchema>;
export type DataPayload = z.input<typeof dataPayloadSchema>;
export type MessagePayload = z.input<typeof messagePayloadSchema>;
export type TaskMetadataPayload = z.input<typeof taskMetadataPayloadSchema>;
export type HelperEvent = z.output<typeof helperEventSchema>;
export type HelperEventType = HelperEvent['type'];

/** True when a custom-stream chunk was written by one of the helpers (it may still be invalid). */
export function isHelperEvent(chunk: unknown): chunk is { [HELPER_TAG]: unknown; type: unknown } {
  return typeof chunk === 'object' && chunk !== null && HELPER_TAG in chunk;
}
