import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Message } from '@a2a-js/sdk';
import {
  describeInterrupt,
  isWaitState,
  readInterrupts,
  storedInterrupts,
  waitState,
  waitingParts,
  INTERRUPTS_KEY,
  type PendingInterrupt,
} from './interrupts.js';
import { readResume } from './resume.js';
import { parts } from './events.js';

const helperPayload = (extra: Record<string, unknown>) => ({
  'langgraph-a2a': 1,
  type: 'input-required',
  prompt: 'Name?',
  ...extra,
});

describe('readInterrupts', () => {
  it.each([
    ['a state chunk', { messages: [] }, undefined],
    ['not an object', 'x', undefined],
    ['an interrupt chunk', { __interrupt__: [{ id: 'i1', value: 'q?' }] }, [{ id: 'i1', value: 'q?' }]],
    ['a malformed interrupt list', { __interrupt__: 'nope' }, []],
    ['an entry without id', { __interrupt__: [{ value: 1 }] }, [{ id: '', value: 1 }]],
  ])('%s', (_name, chunk, expected) => {
    expect(readInterrupts(chunk)).toEqual(expected);
  });
});

describe('describeInterrupt', () => {
  it.each<[string, unknown, Partial<PendingInterrupt>]>([
    [
      'a string value is the prompt',
      'Continue?',
      { kind: 'input-required', prompt: 'Continue?', payload: 'Continue?' },
    ],
    [
      'an object with prompt',
      { prompt: 'Pick one', options: [1, 2] },
      { prompt: 'Pick one', payload: { prompt: 'Pick one', options: [1, 2] } },
    ],
    ['an object with question', { question: 'Why?' }, { prompt: 'Why?' }],
    [
      'an object saying auth-required',
      { type: 'auth-required', prompt: 'Log in' },
      { kind: 'auth-required', prompt: 'Log in' },
    ],
    [
      'anything else gets a default prompt',
      42,
      { kind: 'input-required', prompt: 'The agent needs more input to continue.', payload: 42 },
    ],
    [
      'a requestInput payload brings its schema and data',
      helperPayload({ inputSchema: { type: 'string' }, data: { hint: 'x' } }),
      { kind: 'input-required', prompt: 'Name?', inputSchema: { type: 'string' }, payload: { hint: 'x' } },
    ],
    [
      'a requireAuth payload',
      { 'langgraph-a2a': 1, type: 'auth-required', prompt: 'Token?', scheme: 'Bearer' },
      { kind: 'auth-required', scheme: 'Bearer', payload: null },
    ],
  ])('%s', (_name, value, expected) => {
    expect(describeInterrupt({ id: 'id-1', value })).toMatchObject({ id: 'id-1', ...expected });
  });
});

describe('wait state and parts', () => {
  const input: PendingInterrupt = {
    id: 'a',
    kind: 'input-required',
    prompt: 'A?',
    payload: { x: 1 },
    inputSchema: { type: 'number' },
  };
  const auth: PendingInterrupt = { id: 'b', kind: 'auth-required', prompt: 'B?', payload: null, scheme: 'Bearer' };

  it('is auth-required when any interrupt asks for credentials', () => {
    expect(waitState([input])).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(waitState([input, auth])).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(isWaitState(TaskState.TASK_STATE_AUTH_REQUIRED)).toBe(true);
    expect(isWaitState(TaskState.TASK_STATE_WORKING)).toBe(false);
  });

  it('shows the prompts as text and one data part per interrupt, keyed by id', () => {
    const shown = waitingParts([input, auth], 'Try again.');
    expect(shown[0]?.content).toEqual({ $case: 'text', value: 'Try again.\nA?\nB?' });
    expect(shown.slice(1).map((p) => p.content)).toEqual([
      {
        $case: 'data',
        value: { interruptId: 'a', kind: 'input-required', payload: { x: 1 }, inputSchema: { type: 'number' } },
      },
      { $case: 'data', value: { interruptId: 'b', kind: 'auth-required', payload: null, scheme: 'Bearer' } },
    ]);
    expect(shown[1]?.metadata).toEqual({ 'langgraph-a2a:interruptId': 'a' });
  });

  it('reads back what a waiting task keeps in its metadata', () => {
    expect(storedInterrupts({ [INTERRUPTS_KEY]: [input, 'junk', { no: 'id' }] })).toEqual([input]);
    expect(storedInterrupts(undefined)).toEqual([]);
    expect(storedInterrupts({ [INTERRUPTS_KEY]: 'junk' })).toEqual([]);
  });
});

const answer = (...p: Message['parts']): Message => ({
  messageId: 'm',
  contextId: 'c',
  taskId: 't',
  role: Role.ROLE_USER,
  parts: p,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});

describe('readResume', () => {
  const numberQ: PendingInterrupt = {
    id: 'n',
    kind: 'input-required',
    prompt: 'N?',
    payload: null,
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  };
  const freeQ: PendingInterrupt = { id: 'f', kind: 'input-required', prompt: 'F?', payload: null };

  it.each([
    ['a data part matching the schema', [numberQ], answer(parts.data({ n: 3 })), { ok: true, value: { n: 3 } }],
    [
      'the data part wins over text',
      [numberQ],
      answer(parts.text('ignored'), parts.data({ n: 1 })),
      { ok: true, value: { n: 1 } },
    ],
    [
      'text when there is no schema',
      [freeQ],
      answer(parts.text('yes'), parts.text('really')),
      { ok: true, value: 'yes\nreally' },
    ],
    ['text for a raw interrupt with no pending record', [], answer(parts.text('hello')), { ok: true, value: 'hello' }],
  ])('accepts %s', (_name, pending, message, expected) => {
    const result = readResume(message, pending);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.values[0]?.value).toEqual(expected.value);
  });

  it.each([
    ['an empty answer', [freeQ], answer(), /empty/],
    ['a value that breaks the schema', [numberQ], answer(parts.data({ n: 'three' })), /answer\/n must be integer/],
    ['a missing required field', [numberQ], answer(parts.data({})), /must have required property 'n'/],
    ['text for several questions', [numberQ, freeQ], answer(parts.text('both')), /maps each interrupt id \(n, f\)/],
    ['a map missing one question', [numberQ, freeQ], answer(parts.data({ n: { n: 1 } })), /no answer for interrupt f/],
    [
      'a map with one invalid answer',
      [numberQ, freeQ],
      answer(parts.data({ n: { n: 'x' }, f: 1 })),
      /interrupt n: answer\/n must be integer/,
    ],
  ])('rejects %s with a reason', (_name, pending, message, reason) => {
    const result = readResume(message, pending);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('maps several answers to their interrupts', () => {
    const result = readResume(answer(parts.data({ n: { n: 2 }, f: 'free' })), [numberQ, freeQ]);
    expect(result.ok && result.values.map((v) => [v.pending?.id, v.value])).toEqual([
      ['n', { n: 2 }],
      ['f', 'free'],
    ]);
  });
});
