const BRAND = Symbol.for('langgraph-a2a.error');

export type LangGraphA2AErrorCode =
  'INVALID_OPTIONS' | 'GRAPH_LOAD_FAILED' | 'INVALID_OUTBOX' | 'GRAPH_FAILED' | 'INVALID_FIXTURE' | 'REPLAY_EXHAUSTED';

/**
 * The one error base of the project. `code` is stable and machine-readable; `message`
 * is safe to show a client; `cause` carries the detail, which goes to the log only.
 */
export class LangGraphA2AError extends Error {
  readonly [BRAND] = true;
  override readonly name = 'LangGraphA2AError';

  constructor(
    readonly code: LangGraphA2AErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static isInstance(value: unknown): value is LangGraphA2AError {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}
