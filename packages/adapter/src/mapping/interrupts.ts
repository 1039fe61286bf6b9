import { TaskState, type Part } from '@a2a-js/sdk';
import { interruptPayloadSchema } from '@langgraph-a2a/stream-helpers';
import { RESERVED_PREFIX } from '../constants.js';
import { parts } from './events.js';

export type WaitKind = 'input-required' | 'auth-required';

/** One pending `interrupt()`, as the server keeps it in the task metadata. */
export interface PendingInterrupt {
  id: string;
  kind: WaitKind;
  prompt: string;
  inputSchema?: Record<string, unknown>;
  scheme?: string;
  /** Shown to the client as a data part: the helper's `data`, or a raw interrupt's value. */
  payload: unknown;
}

/** Task and status-update metadata key holding the pending interrupts. */
export const INTERRUPTS_KEY = `${RESERVED_PREFIX}interrupts`;
export const INTERRUPT_ID_KEY = `${RESERVED_PREFIX}interruptId`;

const DEFAULT_PROMPT = 'The agent needs more input to continue.';

interface RawInterrupt {
  id: string;
  value: unknown;
}

/** The `__interrupt__` entries of a `values` or `updates` chunk, if it has any. */
export function readInterrupts(chunk: unknown): RawInterrupt[] | undefined {
  if (typeof chunk !== 'object' || chunk === null || !('__interrupt__' in chunk)) return undefined;
  const list = (chunk as { __interrupt__: unknown }).__interrupt__;
  if (!Array.isArray(list)) return [];
  return list.flatMap((i: unknown) => {
    if (typeof i !== 'object' || i === null) return [];
    const { id, value } = i as { id?: unknown; value?: unknown };
    return [{ id: typeof id === 'string' ? id : '', value }];
  });
}

/**
 * Reads an interrupt value. A stream-helper payload (`requestInput`, `requireAuth`)
 * brings its kind, prompt and schema; any other value is an `input-required` whose
 * prompt is the value itself when it is a string, or its `prompt`/`question` field.
 */
export function describeInterrupt(raw: RawInterrupt): PendingInterrupt {
  const helper = interruptPayloadSchema.safeParse(raw.value);
  if (helper.success) {
    const p = helper.data;
    return {
      id: raw.id,
      kind: p.type,
      prompt: p.prompt,
      ...(p.inputSchema ? { inputSchema: p.inputSchema } : {}),
      ...(p.scheme ? { scheme: p.scheme } : {}),
      payload: p.data ?? null,
    };
  }
  const value = raw.value;
  const field = (name: string) =>
    typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'string'
      ? ((value as Record<string, unknown>)[name] as string)
      : undefined;
  const prompt = typeof value === 'string' && value ? value : (field('prompt') ?? field('question') ?? DEFAULT_PROMPT);
  const kind: WaitKind = field('type') === 'auth-required' ? 'auth-required' : 'input-required';
  return { id: raw.id, kind, prompt, payload: value ?? null };
}

/** Auth wins: a run waiting on any credential is `auth-required`. */
export function waitState(pending: PendingInterrupt[]): TaskState {
  return pending.some((p) => p.kind === 'auth-required')
    ? TaskState.TASK_STATE_AUTH_REQUIRED
    : TaskState.TASK_STATE_INPUT_REQUIRED;
}

export function isWaitState(state: TaskState | undefined): boolean {
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/**
 * The parts of the waiting status message: the prompts as text, then one data part per
 * interrupt `{ interruptId, kind, payload, inputSchema? }` (part metadata names the id).
 */
export function waitingParts(pending: PendingInterrupt[], preface?: string): Part[] {
  const text = [preface, ...pending.map((p) => p.prompt)].filter(Boolean).join('\n');
  return [
    parts.text(text),
    ...pending.map((p) =>
      parts.data(
        {
          interruptId: p.id,
          kind: p.kind,
          payload: p.payload,
          ...(p.inputSchema ? { inputSchema: p.inputSchema } : {}),
          ...(p.scheme ? { scheme: p.scheme } : {}),
        },
        { [INTERRUPT_ID_KEY]: p.id },
      ),
    ),
  ];
}

/** The pending interrupts kept in a waiting task's metadata. */
export function storedInterrupts(metadata: Record<string, unknown> | undefined): PendingInterrupt[] {
  const list = metadata?.[INTERRUPTS_KEY];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (p): p is PendingInterrupt => typeof p === 'object' && p !== null && typeof (p as PendingInterrupt).id === 'string',
  );
}
