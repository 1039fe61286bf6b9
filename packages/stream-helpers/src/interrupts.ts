import { interrupt } from '@langchain/langgraph';
import { z } from 'zod';
import { HELPER_TAG, type JsonValue } from './schema.js';

/**
 * The value a helper passes to LangGraph's `interrupt()`. The server reads it from the
 * stream to put the task in `input-required` / `auth-required`, to show the prompt and
 * to validate the answer against `inputSchema` (JSON Schema) before it resumes the graph.
 */
export const interruptPayloadSchema = z.object({
  [HELPER_TAG]: z.literal(1),
  type: z.enum(['input-required', 'auth-required']),
  prompt: z.string().min(1),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Anything the client needs to answer (shown as a data part). */
  data: z.unknown().optional(),
  /** For auth-required: the scheme the agent expects, e.g. "Bearer" or "oauth2". */
  scheme: z.string().optional(),
});
export type InterruptPayload = z.infer<typeof interruptPayloadSchema>;

export interface RequestInputOptions<S extends z.ZodType> {
  /** What to ask, shown to the user as the status message text. */
  prompt: string;
  /** The shape of the answer. Sent as JSON Schema; the server rejects answers that do not match. */
  schema?: S;
  /** Context for the answer (e.g. what to sign), sent as a data part. */
  data?: JsonValue;
}

/**
 * Pauses the graph until the client answers: the task goes `input-required` with the
 * prompt and the schema. Returns the answer (a data part's value, else the text),
 * already validated by the server and parsed with `schema`.
 *
 * Like LangGraph's `interrupt()`, the node runs again from its start when it resumes:
 * keep side effects before this call idempotent, or in an earlier node.
 */
export function requestInput<S extends z.ZodType = z.ZodType<unknown>>(options: RequestInputOptions<S>): z.output<S> {
  const payload: InterruptPayload = {
    [HELPER_TAG]: 1,
    type: 'input-required',
    prompt: options.prompt,
    ...(options.schema ? { inputSchema: z.toJSONSchema(options.schema) as Record<string, unknown> } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
  };
  const answer: unknown = interrupt(payload);
  return options.schema ? options.schema.parse(answer) : (answer as z.output<S>);
}

export interface RequireAuthOptions {
  prompt: string;
  /** The authentication scheme the client should answer with. */
  scheme?: string;
  /** Context for the client (e.g. an authorization URL), sent as a data part. */
  data?: JsonValue;
}

/**
 * Pauses the graph until the client sends credentials: the task goes `auth-required`.
 * Returns the credentials (a data part's value, else the text).
 *
 * The credentials never reach a checkpoint or a log: the server keeps them in this
 * process's memory and resumes the graph with an opaque handle, which this helper
 * exchanges for them. After a server restart the handle is gone and the helper throws
 * {@link CredentialsUnavailableError}; the task then fails and the client asks again.
 */
export function requireAuth(options: RequireAuthOptions): unknown {
  const payload: InterruptPayload = {
    [HELPER_TAG]: 1,
    type: 'auth-required',
    prompt: options.prompt,
    ...(options.scheme ? { scheme: options.scheme } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
  };
  const handle: unknown = interrupt(payload);
  return credentialVault().take(handle);
}

export class CredentialsUnavailableError extends Error {
  override readonly name = 'CredentialsUnavailableError';
}

const HANDLE_KEY = `${HELPER_TAG}:credentials`;

/**
 * Process-wide store of credentials answered to `auth-required`, shared by the server
 * and the helpers through a global symbol (they may be loaded as separate copies).
 */
export interface CredentialVault {
  /** Keeps `credentials` and returns the handle to resume the graph with. */
  put(credentials: unknown): Record<string, string>;
  /** The credentials behind a handle. Reading does not remove them: a node may run again. */
  take(handle: unknown): unknown;
  /** Forgets the credentials of a handle. */
  drop(handle: unknown): void;
}

export function credentialVault(): CredentialVault {
  const key = Symbol.for('langgraph-a2a.credential-vault');
  const holder = globalThis as unknown as Record<symbol, Map<string, unknown> | undefined>;
  const store = (holder[key] ??= new Map<string, unknown>());
  const idOf = (handle: unknown): string | undefined =>
    typeof handle === 'object' && handle !== null
      ? ((handle as Record<string, unknown>)[HANDLE_KEY] as string)
      : undefined;
  return {
    put(credentials) {
      const id = crypto.randomUUID();
      store.set(id, credentials);
      return { [HANDLE_KEY]: id };
    },
    take(handle) {
      const id = idOf(handle);
      if (id === undefined || !store.has(id)) {
        throw new CredentialsUnavailableError(
          'the credentials for this task are no longer available; ask for them again',
        );
      }
      return store.get(id);
    },
    drop(handle) {
      const id = idOf(handle);
      if (id !== undefined) store.delete(id);
    },
  };
}
