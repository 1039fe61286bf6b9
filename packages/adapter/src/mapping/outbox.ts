import { z } from 'zod';
import { TaskState, type Artifact, type Part } from '@a2a-js/sdk';
import { RESERVED_PREFIX } from '../constants.js';
import { parts } from './events.js';

/**
 * The `a2a_outbox` channel, as a graph writes it. Part and artifact shapes follow the
 * A2A v1.0 JSON (`{ text }`, `{ data }`, `{ url }`, `{ raw }` with optional
 * `mediaType`/`filename`/`metadata`). The server owns task and context ids, so there
 * are no id fields here; reserved metadata keys are dropped on the way out.
 */
const metadataSchema = z.record(z.string(), z.unknown());

const partSchema = z.union([
  z.object({ text: z.string(), metadata: metadataSchema.optional() }),
  z.object({ data: z.unknown(), metadata: metadataSchema.optional() }),
  z.object({
    url: z.string().url(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: metadataSchema.optional(),
  }),
  z.object({
    raw: z.string().base64(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: metadataSchema.optional(),
  }),
]);

const messageSchema = z.object({
  messageId: z.string().min(1).optional(),
  parts: z.array(partSchema).min(1),
  metadata: metadataSchema.optional(),
});

const artifactSchema = z.object({
  artifactId: z.string().min(1).optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(partSchema).min(1),
  metadata: metadataSchema.optional(),
});

const finalStates = {
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  rejected: TaskState.TASK_STATE_REJECTED,
} as const;

export const outboxSchema = z.union([
  z.object({ message: messageSchema }).strict(),
  z
    .object({
      task: z.object({
        state: z.enum(['completed', 'failed', 'rejected']).optional(),
        /** The final status message. */
        message: messageSchema.optional(),
        /** Appended to the task history. */
        history: z.array(messageSchema).optional(),
        /** Added to the task's artifacts (an artifact with a known id replaces it). */
        artifacts: z.array(artifactSchema).optional(),
        /** Shallow-merged into the task metadata. */
        metadata: metadataSchema.optional(),
      }),
    })
    .strict(),
]);

export type OutboxInput = z.input<typeof outboxSchema>;

export function withoutReservedKeys(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!metadata) return {};
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => !k.startsWith(RESERVED_PREFIX)));
}

function toPart(p: z.output<typeof partSchema>): Part {
  const metadata = withoutReservedKeys(p.metadata);
  if ('text' in p) return parts.text(p.text, metadata);
  if ('url' in p) return parts.fileUrl(p.url, p.mediaType ?? 'application/octet-stream', p.filename, metadata);
  if ('raw' in p) return parts.fileBytes(p.raw, p.mediaType ?? 'application/octet-stream', p.filename, metadata);
  return parts.data(p.data, metadata);
}

/** A message as the outbox describes it, before the server stamps ids on it. */
export interface OutboxMessage {
  messageId: string | undefined;
  parts: Part[];
  metadata: Record<string, unknown>;
}

export type OutboxAnswer =
  | { kind: 'message'; message: OutboxMessage }
  | {
      kind: 'task';
      state: TaskState;
      message: OutboxMessage | undefined;
      history: OutboxMessage[];
      artifacts: Array<Omit<Artifact, 'artifactId' | 'extensions'> & { artifactId: string | undefined }>;
      metadata: Record<string, unknown>;
    };

const toMessage = (m: z.output<typeof messageSchema>): OutboxMessage => ({
  messageId: m.messageId,
  parts: m.parts.map(toPart),
  metadata: withoutReservedKeys(m.metadata),
});

/** Validates `a2a_outbox`. Returns a readable reason instead of throwing. */
export function parseOutbox(value: unknown): { ok: true; answer: OutboxAnswer } | { ok: false; reason: string } {
  const parsed = outboxSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: z.prettifyError(parsed.error) };
  const out = parsed.data;
  if ('message' in out) return { ok: true, answer: { kind: 'message', message: toMessage(out.message) } };
  const t = out.task;
  return {
    ok: true,
    answer: {
      kind: 'task',
      state: finalStates[t.state ?? 'completed'],
      message: t.message ? toMessage(t.message) : undefined,
      history: (t.history ?? []).map(toMessage),
      artifacts: (t.artifacts ?? []).map((a) => ({
        artifactId: a.artifactId,
        name: a.name ?? '',
        description: a.description ?? '',
        parts: a.parts.map(toPart),
        metadata: withoutReservedKeys(a.metadata),
      })),
      metadata: withoutReservedKeys(t.metadata),
    },
  };
}
