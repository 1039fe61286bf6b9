import { isAIMessage, type BaseMessage } from '@langchain/core/messages';
import { MESSAGES_CHANNEL, OUTBOX_CHANNEL } from '../constants.js';
import { parseOutbox, type OutboxAnswer } from './outbox.js';

/** The final answer of a run, by the precedence of DESIGN.md ("Outbound mapping"). */
export type FinalAnswer =
  | { kind: 'outbox'; answer: OutboxAnswer }
  | { kind: 'invalid-outbox'; reason: string }
  | { kind: 'ai-message'; messageId: string | undefined; text: string }
  | { kind: 'delta'; text: string }
  | { kind: 'none' };

export interface FinalAnswerInput {
  /** The last `values` snapshot, if any. */
  values: Record<string, unknown> | undefined;
  /** The inbound A2A messageId (= the HumanMessage id this run appended). */
  inboundMessageId: string;
  /** Text accumulated from token deltas during the run. */
  deltaText: string;
  /** Ids of the messages already in the state when the run started (its first `values` chunk). */
  baselineIds?: ReadonlySet<string>;
}

/**
 * The AIMessage that answers this run: the last one with text after the inbound
 * HumanMessage, or, when that message is not in the state (a resumed run gets its answer
 * as a Command, not a message), the last one the run added. An AIMessage from an
 * earlier turn is never this run's answer.
 */
function lastAnswerMessage(
  messages: unknown,
  inboundMessageId: string,
  baseline: ReadonlySet<string> | undefined,
): BaseMessage | undefined {
  if (!Array.isArray(messages)) return undefined;
  const list = messages as BaseMessage[];
  const inboundIndex = list.findIndex((m) => m?.id === inboundMessageId);
  if (inboundIndex < 0 && baseline === undefined) return undefined;
  for (let i = list.length - 1; i > inboundIndex; i--) {
    const m = list[i];
    if (!m || !isAIMessage(m) || !m.text) continue;
    if (inboundIndex < 0 && m.id !== undefined && baseline!.has(m.id)) continue;
    return m;
  }
  return undefined;
}

export function finalAnswer(input: FinalAnswerInput): FinalAnswer {
  const outbox = input.values?.[OUTBOX_CHANNEL];
  if (outbox !== undefined && outbox !== null) {
    const parsed = parseOutbox(outbox);
    return parsed.ok ? { kind: 'outbox', answer: parsed.answer } : { kind: 'invalid-outbox', reason: parsed.reason };
  }
  const ai = lastAnswerMessage(input.values?.[MESSAGES_CHANNEL], input.inboundMessageId, input.baselineIds);
  if (ai) return { kind: 'ai-message', messageId: ai.id, text: ai.text };
  if (input.deltaText) return { kind: 'delta', text: input.deltaText };
  return { kind: 'none' };
}
