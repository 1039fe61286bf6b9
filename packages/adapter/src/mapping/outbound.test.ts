import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { TaskState } from '@a2a-js/sdk';
import { RESERVED_PREFIX } from '../constants.js';
import { parts } from './events.js';
import { finalAnswer, type FinalAnswer } from './outbound.js';
import { parseOutbox, type OutboxAnswer } from './outbox.js';

const INBOUND = 'inbound-1';
const RESERVED = `${RESERVED_PREFIX}secret`;

/** Two turns of a conversation: the earlier turn's answer, then this run's question. */
const earlierTurn = (): BaseMessage[] => [
  new HumanMessage({ id: 'inbound-0', content: 'first question' }),
  new AIMessage({ id: 'ai-0', content: 'first answer' }),
];
const question = () => new HumanMessage({ id: INBOUND, content: 'second question' });

const outboxMessage = { message: { parts: [{ text: 'from outbox' }] } };
const outboxTask = { task: { state: 'rejected', message: { parts: [{ text: 'no' }] } } };

describe('finalAnswer', () => {
  it.each<{ name: string; values: Record<string, unknown> | undefined; deltaText?: string; expected: FinalAnswer }>([
    {
      name: 'an outbox message wins over an AIMessage and deltas',
      values: { a2a_outbox: outboxMessage, messages: [question(), new AIMessage({ id: 'ai-1', content: 'answer' })] },
      deltaText: 'streamed',
      expected: {
        kind: 'outbox',
        answer: {
          kind: 'message',
          message: { messageId: undefined, parts: [parts.text('from outbox')], metadata: {} },
        },
      },
    },
    {
      name: 'an outbox task wins over an AIMessage and deltas',
      values: { a2a_outbox: outboxTask, messages: [question(), new AIMessage({ id: 'ai-1', content: 'answer' })] },
      deltaText: 'streamed',
      expected: {
        kind: 'outbox',
        answer: {
          kind: 'task',
          state: TaskState.TASK_STATE_REJECTED,
          message: { messageId: undefined, parts: [parts.text('no')], metadata: {} },
          history: [],
          artifacts: [],
          metadata: {},
        },
      },
    },
    {
      name: 'the last AIMessage after the inbound message',
      values: {
        a2a_outbox: null,
        messages: [
          ...earlierTurn(),
          question(),
          new AIMessage({ id: 'ai-1', content: 'thinking' }),
          new AIMessage({ id: 'ai-2', content: 'answer' }),
        ],
      },
      deltaText: 'streamed',
      expected: { kind: 'ai-message', messageId: 'ai-2', text: 'answer' },
    },
    {
      name: 'an AIMessage without text (a tool call) is skipped',
      values: {
        messages: [
          question(),
          new AIMessage({ id: 'ai-1', content: 'answer' }),
          new AIMessage({ id: 'ai-2', content: '', tool_calls: [{ id: 'call-1', name: 'search', args: {} }] }),
          new ToolMessage({ id: 'tool-1', content: 'result', tool_call_id: 'call-1' }),
        ],
      },
      expected: { kind: 'ai-message', messageId: 'ai-1', text: 'answer' },
    },
    {
      name: 'an AIMessageChunk stored in the state counts as an AIMessage',
      values: { messages: [question(), new AIMessageChunk({ id: 'ai-1', content: 'streamed answer' })] },
      expected: { kind: 'ai-message', messageId: 'ai-1', text: 'streamed answer' },
    },
    {
      name: "an earlier turn's AIMessage is not this run's answer: the deltas are",
      values: { messages: [...earlierTurn(), question()] },
      deltaText: 'streamed',
      expected: { kind: 'delta', text: 'streamed' },
    },
    {
      name: "an earlier turn's AIMessage and no deltas: none",
      values: { messages: [...earlierTurn(), question()] },
      expected: { kind: 'none' },
    },
    {
      name: 'no values at all: the deltas',
      values: undefined,
      deltaText: 'streamed',
      expected: { kind: 'delta', text: 'streamed' },
    },
    {
      name: 'a messages channel that is not a list: the deltas',
      values: { messages: 'oops' },
      deltaText: 'streamed',
      expected: { kind: 'delta', text: 'streamed' },
    },
    { name: 'nothing: none', values: {}, expected: { kind: 'none' } },
  ])('$name', ({ values, deltaText, expected }) => {
    expect(finalAnswer({ values, inboundMessageId: INBOUND, deltaText: deltaText ?? '' })).toEqual(expected);
  });

  it('an invalid outbox wins over an AIMessage and deltas', () => {
    const answer = finalAnswer({
      values: {
        a2a_outbox: { message: { parts: [] } },
        messages: [question(), new AIMessage({ id: 'ai-1', content: 'answer' })],
      },
      inboundMessageId: INBOUND,
      deltaText: 'streamed',
    });
    expect(answer.kind).toBe('invalid-outbox');
    expect(answer.kind === 'invalid-outbox' && answer.reason).toMatch(/parts/);
  });

  // Regression: when the inbound id was not in the state (a resumed run: the answer reaches the
  // graph as Command({ resume }), not as a HumanMessage), findIndex gives -1 and every
  // AIMessage of the thread counts, so an earlier turn's answer becomes this run's answer.
  it("an earlier turn's AIMessage does not count when the inbound id is not in the state", () => {
    const answer = finalAnswer({
      values: { messages: [...earlierTurn(), question()] },
      inboundMessageId: 'resume-answer-1',
      deltaText: '',
    });
    expect(answer).toEqual({ kind: 'none' });
  });
});

describe('parseOutbox', () => {
  const bytes = Buffer.from('hello file');

  it.each<{ name: string; value: unknown; answer: OutboxAnswer }>([
    {
      name: 'a message with a text part',
      value: { message: { parts: [{ text: 'hi' }] } },
      answer: { kind: 'message', message: { messageId: undefined, parts: [parts.text('hi')], metadata: {} } },
    },
    {
      name: 'a message with its id, every part kind, and reserved metadata keys dropped',
      value: {
        message: {
          messageId: 'out-1',
          metadata: { keep: 1, [RESERVED]: 2 },
          parts: [
            { text: 'hi', metadata: { [RESERVED]: true, lang: 'en' } },
            { data: { n: 1 } },
            { url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
            { raw: bytes.toString('base64') },
          ],
        },
      },
      answer: {
        kind: 'message',
        message: {
          messageId: 'out-1',
          metadata: { keep: 1 },
          parts: [
            parts.text('hi', { lang: 'en' }),
            parts.data({ n: 1 }),
            parts.fileUrl('https://example.com/a.pdf', 'application/pdf', 'a.pdf'),
            {
              content: { $case: 'raw', value: bytes },
              mediaType: 'application/octet-stream',
              filename: '',
              metadata: {},
            },
          ],
        },
      },
    },
    {
      name: 'an empty task: completed by default',
      value: { task: {} },
      answer: {
        kind: 'task',
        state: TaskState.TASK_STATE_COMPLETED,
        message: undefined,
        history: [],
        artifacts: [],
        metadata: {},
      },
    },
    {
      name: 'a failed task',
      value: { task: { state: 'failed' } },
      answer: {
        kind: 'task',
        state: TaskState.TASK_STATE_FAILED,
        message: undefined,
        history: [],
        artifacts: [],
        metadata: {},
      },
    },
    {
      name: 'a full task, reserved keys dropped everywhere',
      value: {
        task: {
          state: 'completed',
          message: { parts: [{ text: 'done' }], metadata: { [RESERVED]: 1 } },
          history: [{ messageId: 'h-1', parts: [{ text: 'step 1' }] }],
          artifacts: [
            { artifactId: 'report', name: 'Report', parts: [{ data: [1, 2] }], metadata: { [RESERVED]: 1, v: 2 } },
            { parts: [{ text: 'no id' }] },
          ],
          metadata: { [RESERVED]: 'x', owner: 'me' },
        },
      },
      answer: {
        kind: 'task',
        state: TaskState.TASK_STATE_COMPLETED,
        message: { messageId: undefined, parts: [parts.text('done')], metadata: {} },
        history: [{ messageId: 'h-1', parts: [parts.text('step 1')], metadata: {} }],
        artifacts: [
          { artifactId: 'report', name: 'Report', description: '', parts: [parts.data([1, 2])], metadata: { v: 2 } },
          { artifactId: undefined, name: '', description: '', parts: [parts.text('no id')], metadata: {} },
        ],
        metadata: { owner: 'me' },
      },
    },
  ])('accepts $name', ({ value, answer }) => {
    expect(parseOutbox(value)).toEqual({ ok: true, answer });
  });

  it.each<{ name: string; value: unknown }>([
    { name: 'null', value: null },
    { name: 'a string', value: 'hello' },
    { name: 'an empty object', value: {} },
    { name: 'an unknown top-level key next to a message', value: { message: { parts: [{ text: 'x' }] }, extra: true } },
    { name: 'an unknown top-level key next to a task', value: { task: {}, status: 'done' } },
    { name: 'both a message and a task', value: { message: { parts: [{ text: 'x' }] }, task: {} } },
    { name: 'a message with empty parts', value: { message: { parts: [] } } },
    { name: 'a message without parts', value: { message: {} } },
    { name: 'an artifact with empty parts', value: { task: { artifacts: [{ parts: [] }] } } },
    { name: 'a history message with empty parts', value: { task: { history: [{ parts: [] }] } } },
    { name: 'a non-final task state', value: { task: { state: 'working' } } },
    { name: 'a part that is nothing known', value: { message: { parts: [{}] } } },
    { name: 'a url part with a bad url', value: { message: { parts: [{ url: 'not a url' }] } } },
    { name: 'a raw part that is not base64', value: { message: { parts: [{ raw: 'not base64!!' }] } } },
    { name: 'an empty messageId', value: { message: { messageId: '', parts: [{ text: 'x' }] } } },
  ])('rejects $name', ({ value }) => {
    const result = parseOutbox(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason.length).toBeGreaterThan(0);
  });
});
