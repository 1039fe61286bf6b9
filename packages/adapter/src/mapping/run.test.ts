import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { HELPER_TAG, RESERVED_PREFIX } from '@langgraph-a2a/stream-helpers';
import { STREAM_DELTA_ARTIFACT_ID, STREAMED_AS_KEY } from '../constants.js';
import type { IdsAndClock } from './env.js';
import { INTERRUPTS_KEY } from './interrupts.js';
import { DELTA_MESSAGE_ID_KEY } from './messages-mode.js';
import { GraphRun, type GraphRunOptions, type RunOutcome } from './run.js';

const NOW = '2025-01-01T00:00:00.000Z';
const IDS = { taskId: 'task-1', contextId: 'ctx-1' };

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  mediaType: 'text/plain',
  filename: '',
  metadata: {},
});

const USER: Message = {
  messageId: 'user-1',
  contextId: 'ctx-1',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [textPart('hello')],
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
};

/** Ids id-1, id-2, ... and a clock that never moves. */
function counterEnv(): IdsAndClock {
  let n = 0;
  return { newId: () => `id-${++n}`, now: () => NOW };
}

function newRun(options: Partial<GraphRunOptions> = {}) {
  const metadataCalls: Array<Record<string, unknown>> = [];
  const diagnostics: string[] = [];
  const run = new GraphRun({
    ids: IDS,
    env: counterEnv(),
    userMessage: USER,
    existingTask: undefined,
    mayReplyWithMessage: false,
    onTaskMetadata: (metadata) => metadataCalls.push(metadata),
    onDiagnostic: (message) => diagnostics.push(message),
    ...options,
  });
  return { run, metadataCalls, diagnostics };
}

const stateName = (state: TaskState | undefined) =>
  state === undefined ? 'none' : TaskState[state].replace('TASK_STATE_', '');

/** One line per event, for readable assertions on order. */
function describeEvent(e: AgentExecutionEvent): string {
  switch (e.kind) {
    case 'task':
      return `task:${stateName(e.data.status?.state)}`;
    case 'statusUpdate':
      return `status:${stateName(e.data.status?.state)}`;
    case 'artifactUpdate':
      return `artifact:${e.data.artifact?.artifactId}`;
    case 'message':
      return 'message';
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
}
const shape = (events: AgentExecutionEvent[]) => events.map(describeEvent);

const textOf = (m: { parts: Part[] } | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');

function lastStatus(events: AgentExecutionEvent[]) {
  const last = events.at(-1);
  if (last?.kind !== 'statusUpdate') throw new Error(`the last event is ${last ? describeEvent(last) : 'missing'}`);
  return last.data;
}

function artifacts(events: AgentExecutionEvent[]) {
  return events.flatMap((e) => (e.kind === 'artifactUpdate' ? [e.data] : []));
}

const delta = (text: string, id = 'ai-1') => [new AIMessageChunk({ content: text, id }), { langgraph_node: 'agent' }];
const helper = (type: string, payload: unknown) => ({ [HELPER_TAG]: 1, type, payload });
const outboxMessageValues = {
  a2a_outbox: { message: { messageId: 'out-1', parts: [{ text: 'direct reply' }], metadata: { k: 'v' } } },
};

const existingTask: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: undefined, timestamp: NOW },
  artifacts: [
    { artifactId: 'plan', name: 'Plan', description: '', parts: [textPart('plan')], metadata: {}, extensions: [] },
  ],
  history: [USER],
  metadata: { owner: 'me', [INTERRUPTS_KEY]: [{ id: 'int-1', kind: 'input-required', prompt: 'ok?', payload: null }] },
};

describe('GraphRun.start', () => {
  it.each<{ name: string; options: Partial<GraphRunOptions>; expected: string[] }>([
    { name: 'a new task: submitted, then working', options: {}, expected: ['task:SUBMITTED', 'status:WORKING'] },
    {
      name: 'a graph that may reply with a message: nothing yet',
      options: { mayReplyWithMessage: true },
      expected: [],
    },
    {
      name: 'a continued task: the task, working, then working',
      options: { existingTask },
      expected: ['task:WORKING', 'status:WORKING'],
    },
  ])('$name', ({ options, expected }) => {
    const { run } = newRun(options);
    const events = run.start();
    expect(shape(events)).toEqual(expected);
    for (const e of events) {
      if (e.kind === 'task')
        expect(e.data).toMatchObject({ id: 'task-1', contextId: 'ctx-1', status: { timestamp: NOW } });
      if (e.kind === 'statusUpdate')
        expect(e.data).toMatchObject({ taskId: 'task-1', contextId: 'ctx-1', status: { timestamp: NOW } });
    }
    // The task is published once per run.
    expect(run.start()).toEqual([]);
  });

  it('a new task starts its history with the user message', () => {
    const [task] = newRun().run.start();
    expect(task?.kind === 'task' && task.data.history).toEqual([USER]);
  });

  it('a continued task keeps its history and artifacts, and no longer waits on its interrupts', () => {
    const [task] = newRun({ existingTask }).run.start();
    if (task?.kind !== 'task') throw new Error('expected a task');
    expect(task.data.history).toEqual(existingTask.history);
    expect(task.data.artifacts).toEqual(existingTask.artifacts);
    expect(task.data.metadata).toEqual({ owner: 'me', [INTERRUPTS_KEY]: [] });
  });
});

describe('GraphRun token deltas', () => {
  it.each<{ name: string; mayReplyWithMessage: boolean; expected: string[] }>([
    {
      name: 'a task started up front',
      mayReplyWithMessage: false,
      expected: [
        'task:SUBMITTED',
        'status:WORKING',
        ...Array(3).fill(`artifact:${STREAM_DELTA_ARTIFACT_ID}`),
        'status:COMPLETED',
      ],
    },
    {
      name: 'a task created lazily at the first delta',
      mayReplyWithMessage: true,
      expected: [
        'task:SUBMITTED',
        'status:WORKING',
        ...Array(3).fill(`artifact:${STREAM_DELTA_ARTIFACT_ID}`),
        'status:COMPLETED',
      ],
    },
  ])(
    'one Stream Delta artifact with exactly one lastChunk, at the end ($name)',
    ({ mayReplyWithMessage, expected }) => {
      const { run } = newRun({ mayReplyWithMessage });
      const events = [
        ...run.start(),
        ...run.process('messages', delta('Hel')),
        // Neither a whole message nor a tool-call chunk is a delta.
        ...run.process('messages', [new AIMessage({ content: 'Hello', id: 'ai-1' }), { langgraph_node: 'agent' }]),
        ...run.process('messages', delta('')),
        ...run.process('messages', delta('lo')),
        ...run.process('values', {
          messages: [
            new HumanMessage({ id: 'user-1', content: 'hello' }),
            new AIMessageChunk({ id: 'ai-1', content: 'Hello' }),
          ],
        }),
        ...run.finish(),
      ];
      expect(shape(events)).toEqual(expected);
      const chunks = artifacts(events);
      expect(chunks.map((a) => textOf(a.artifact))).toEqual(['Hel', 'lo', '']);
      expect(chunks.map((a) => a.append)).toEqual([false, true, true]);
      expect(chunks.map((a) => a.lastChunk)).toEqual([false, false, true]);
      expect(chunks[0]?.artifact?.name).toBe('Stream Delta');
      expect(chunks[0]?.artifact?.parts[0]?.metadata).toEqual({ [DELTA_MESSAGE_ID_KEY]: 'ai-1' });

      // The final answer is the AIMessage, marked as already streamed.
      const status = lastStatus(events);
      expect(textOf(status.status?.message)).toBe('Hello');
      expect(status.status?.message).toMatchObject({
        messageId: 'ai-1',
        role: Role.ROLE_AGENT,
        taskId: 'task-1',
        metadata: { [STREAMED_AS_KEY]: STREAM_DELTA_ARTIFACT_ID },
      });
      expect(run.outcome).toBe<RunOutcome>('completed');
    },
  );

  it('without an AIMessage in the state, the streamed text is the answer', () => {
    const { run } = newRun();
    run.start();
    run.process('messages', delta('Hel'));
    run.process('messages', delta('lo'));
    const events = run.finish();
    expect(shape(events)).toEqual([`artifact:${STREAM_DELTA_ARTIFACT_ID}`, 'status:COMPLETED']);
    expect(textOf(lastStatus(events).status?.message)).toBe('Hello');
    expect(lastStatus(events).status?.message?.metadata).toEqual({ [STREAMED_AS_KEY]: STREAM_DELTA_ARTIFACT_ID });
  });

  it('no deltas: no Stream Delta artifact, and a reply that says so', () => {
    const { run } = newRun();
    const events = [...run.start(), ...run.finish()];
    expect(shape(events)).toEqual(['task:SUBMITTED', 'status:WORKING', 'status:COMPLETED']);
    expect(textOf(lastStatus(events).status?.message)).toBe('The agent finished without a reply.');
  });
});

describe('GraphRun terminal states', () => {
  const ends: Array<{
    name: string;
    end: (run: GraphRun) => AgentExecutionEvent[];
    outcome: RunOutcome;
    last: string;
  }> = [
    { name: 'finish', end: (run) => run.finish(), outcome: 'completed', last: 'status:COMPLETED' },
    { name: 'fail', end: (run) => run.fail('boom'), outcome: 'failed', last: 'status:FAILED' },
    { name: 'cancel', end: (run) => run.cancel(), outcome: 'canceled', last: 'status:CANCELED' },
    {
      name: 'an outbox rejection',
      end: (run) => [...run.process('values', { a2a_outbox: { task: { state: 'rejected' } } }), ...run.finish()],
      outcome: 'rejected',
      last: 'status:REJECTED',
    },
  ];
  const after: Array<{ then: string; call: (run: GraphRun) => AgentExecutionEvent[] }> = [
    { then: 'finish()', call: (run) => run.finish() },
    { then: 'fail()', call: (run) => run.fail('late') },
    { then: 'cancel()', call: (run) => run.cancel() },
    { then: 'a delta', call: (run) => run.process('messages', delta('late')) },
    { then: 'a helper event', call: (run) => run.process('custom', helper('message', { text: 'late' })) },
    { then: 'an outbox', call: (run) => [...run.process('values', outboxMessageValues), ...run.finish()] },
  ];

  it.each(ends.flatMap((e) => after.map((a) => ({ ...e, ...a }))))(
    'after $name, $then returns nothing',
    ({ end, outcome, last, call }) => {
      const { run } = newRun();
      run.start();
      run.process('messages', delta('partial'));
      const ended = end(run);
      expect(shape(ended).at(-1)).toBe(last);
      expect(run.isEnded).toBe(true);
      expect(run.outcome).toBe(outcome);
      expect(call(run)).toEqual([]);
      expect(run.outcome).toBe(outcome);
    },
  );

  it('cancel() closes the Stream Delta artifact, then finish() cannot overwrite the canceled state', () => {
    const { run } = newRun();
    run.start();
    run.process('messages', delta('partial'));
    run.process('values', {
      messages: [new HumanMessage({ id: 'user-1', content: 'hello' }), new AIMessage({ id: 'ai-1', content: 'done' })],
    });
    const canceled = run.cancel();
    expect(shape(canceled)).toEqual([`artifact:${STREAM_DELTA_ARTIFACT_ID}`, 'status:CANCELED']);
    expect(artifacts(canceled)[0]?.lastChunk).toBe(true);
    expect(textOf(lastStatus(canceled).status?.message)).toBe('The task was canceled.');
    expect(run.finish()).toEqual([]);
  });

  it('cancel() takes a reason', () => {
    const { run } = newRun();
    run.start();
    expect(textOf(lastStatus(run.cancel('Stopped by the user.')).status?.message)).toBe('Stopped by the user.');
  });

  it.each<{ name: string; mayReplyWithMessage: boolean; expected: string[] }>([
    { name: 'a started task', mayReplyWithMessage: false, expected: ['status:FAILED'] },
    {
      name: 'no task yet: it is created to fail',
      mayReplyWithMessage: true,
      expected: ['task:SUBMITTED', 'status:WORKING', 'status:FAILED'],
    },
  ])('fail() ends $name FAILED with the given message', ({ mayReplyWithMessage, expected }) => {
    const { run } = newRun({ mayReplyWithMessage });
    run.start();
    const events = run.fail('The agent failed: try again later.');
    expect(shape(events)).toEqual(expected);
    const status = lastStatus(events);
    expect(status.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(status.status?.message)).toBe('The agent failed: try again later.');
    expect(status.status?.message?.role).toBe(Role.ROLE_AGENT);
  });

  it('an invalid outbox fails the task and reports why', () => {
    const { run, diagnostics } = newRun();
    run.start();
    run.process('values', { a2a_outbox: { message: { parts: [] } } });
    const events = run.finish();
    expect(lastStatus(events).status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(lastStatus(events).status?.message)).toMatch(/^The agent produced an invalid answer \(a2a_outbox\)/);
    expect(diagnostics).toEqual(['the graph returned an invalid a2a_outbox']);
  });
});

describe('GraphRun outbox answers', () => {
  it('replies with a direct Message when it may and nothing started a task', () => {
    const { run } = newRun({ mayReplyWithMessage: true });
    expect(run.start()).toEqual([]);
    run.process('values', outboxMessageValues);
    const events = run.finish();
    expect(shape(events)).toEqual(['message']);
    const [event] = events;
    if (event?.kind !== 'message') throw new Error('expected a message');
    expect(event.data).toMatchObject({
      messageId: 'out-1',
      contextId: 'ctx-1',
      taskId: '',
      role: Role.ROLE_AGENT,
      metadata: { k: 'v' },
    });
    expect(textOf(event.data)).toBe('direct reply');
    expect(run.outcome).toBe<RunOutcome>('message');
    expect(run.isEnded).toBe(true);
  });

  it.each<{
    name: string;
    mayReplyWithMessage: boolean;
    before: (run: GraphRun) => AgentExecutionEvent[];
    expected: string[];
  }>([
    {
      name: 'the graph may not reply with a message',
      mayReplyWithMessage: false,
      before: (run) => run.start(),
      expected: ['task:SUBMITTED', 'status:WORKING', 'status:COMPLETED'],
    },
    {
      name: 'a helper event started the task',
      mayReplyWithMessage: true,
      before: (run) => [...run.start(), ...run.process('custom', helper('message', { text: 'working on it' }))],
      expected: ['task:SUBMITTED', 'status:WORKING', 'status:WORKING', 'status:COMPLETED'],
    },
  ])('an outbox message completes the task when $name', ({ mayReplyWithMessage, before, expected }) => {
    const { run } = newRun({ mayReplyWithMessage });
    const events = [...before(run), ...run.process('values', outboxMessageValues), ...run.finish()];
    expect(shape(events)).toEqual(expected);
    expect(lastStatus(events).status?.message).toMatchObject({
      messageId: 'out-1',
      taskId: 'task-1',
      metadata: { k: 'v' },
    });
    expect(textOf(lastStatus(events).status?.message)).toBe('direct reply');
    expect(run.outcome).toBe<RunOutcome>('completed');
  });

  it('an outbox task publishes artifacts, history and metadata, then its final state', () => {
    const { run, metadataCalls } = newRun();
    run.start();
    run.process('values', {
      a2a_outbox: {
        task: {
          state: 'rejected',
          message: { parts: [{ text: 'Not allowed.' }] },
          history: [{ parts: [{ text: 'checked the policy' }] }],
          artifacts: [{ parts: [{ data: { reason: 'policy' } }] }, { artifactId: 'kept', parts: [{ text: 'x' }] }],
          metadata: { reviewed: true, [`${RESERVED_PREFIX}x`]: 1 },
        },
      },
    });
    const events = run.finish();
    expect(shape(events)).toEqual([
      'artifact:id-1',
      'artifact:kept',
      'status:WORKING',
      'status:WORKING',
      'status:REJECTED',
    ]);
    expect(artifacts(events).map((a) => [a.append, a.lastChunk])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(metadataCalls).toEqual([{ reviewed: true }]);
    expect(events[3]?.kind === 'statusUpdate' && events[3].data.metadata).toEqual({ reviewed: true });
    expect(textOf(lastStatus(events).status?.message)).toBe('Not allowed.');
    expect(run.outcome).toBe<RunOutcome>('rejected');
  });
});

describe('GraphRun custom helper events', () => {
  it('emitTaskMetadata payloads reach onTaskMetadata and a working status carries them', () => {
    const { run, metadataCalls } = newRun();
    run.start();
    const events = run.process('custom', helper('task-metadata', { metadata: { progress: 0.5 } }));
    expect(metadataCalls).toEqual([{ progress: 0.5 }]);
    expect(shape(events)).toEqual(['status:WORKING']);
    expect(events[0]?.kind === 'statusUpdate' && events[0].data).toMatchObject({
      metadata: { progress: 0.5 },
      status: { message: undefined },
    });
  });

  it.each<{ name: string; chunk: unknown; diagnostics: string[] }>([
    {
      name: 'reserved task metadata keys',
      chunk: helper('task-metadata', { metadata: { [INTERRUPTS_KEY]: [] } }),
      diagnostics: ['ignored an invalid stream-helper payload'],
    },
    {
      name: 'an invalid helper payload',
      chunk: helper('file', {}),
      diagnostics: ['ignored an invalid stream-helper payload'],
    },
    { name: 'a payload that is not ours', chunk: { progress: 0.5 }, diagnostics: [] },
  ])('drops $name without calling onTaskMetadata', ({ chunk, diagnostics }) => {
    const { run, metadataCalls, diagnostics: seen } = newRun({ mayReplyWithMessage: true });
    expect(run.process('custom', chunk)).toEqual([]);
    expect(metadataCalls).toEqual([]);
    expect(seen).toEqual(diagnostics);
  });

  it.each<{ name: string; chunk: unknown; expected: Record<string, unknown> }>([
    {
      name: 'data, with a generated artifact id',
      chunk: helper('data', { data: { n: 1 } }),
      expected: {
        artifact: { artifactId: 'id-1', name: '', parts: [{ content: { $case: 'data', value: { n: 1 } } }] },
        append: false,
        lastChunk: true,
      },
    },
    {
      name: 'a file chunk of a named artifact',
      chunk: helper('file', {
        artifactId: 'f',
        name: 'Photo',
        url: 'https://example.com/a.png',
        mediaType: 'image/png',
        append: true,
        lastChunk: false,
      }),
      expected: {
        artifact: {
          artifactId: 'f',
          name: 'Photo',
          parts: [{ content: { $case: 'url', value: 'https://example.com/a.png' }, mediaType: 'image/png' }],
        },
        append: true,
        lastChunk: false,
      },
    },
  ])('$name becomes an artifact update', ({ chunk, expected }) => {
    const { run } = newRun();
    run.start();
    const events = run.process('custom', chunk);
    expect(shape(events)).toHaveLength(1);
    expect(events[0]?.kind === 'artifactUpdate' && events[0].data).toMatchObject({
      taskId: 'task-1',
      contextId: 'ctx-1',
      ...expected,
    });
  });

  it('a message helper becomes a working status with that text', () => {
    const { run } = newRun();
    run.start();
    const events = run.process('custom', helper('message', { text: 'Searching...' }));
    expect(shape(events)).toEqual(['status:WORKING']);
    expect(textOf(lastStatus(events).status?.message)).toBe('Searching...');
  });
});

describe('GraphRun interrupts', () => {
  it.each<{ mode: 'updates' | 'values' }>([{ mode: 'updates' }, { mode: 'values' }])(
    'an __interrupt__ in a $mode chunk leaves the task input-required',
    ({ mode }) => {
      const { run, metadataCalls } = newRun();
      run.start();
      run.process(mode, { __interrupt__: [{ id: 'int-1', value: 'Which city?' }] });
      const events = run.finish();
      expect(shape(events)).toEqual(['status:INPUT_REQUIRED']);
      expect(textOf(lastStatus(events).status?.message)).toBe('Which city?');
      expect(metadataCalls).toEqual([
        { [INTERRUPTS_KEY]: [{ id: 'int-1', kind: 'input-required', prompt: 'Which city?', payload: 'Which city?' }] },
      ]);
      expect(run.outcome).toBe<RunOutcome>('waiting');
      expect(run.finish()).toEqual([]);
    },
  );
});

describe('GraphRun resumed task', () => {
  // Regression: a resumed run's answer message is not in state.messages (the graph resumes
  // with a Command), so finalAnswer finds no anchor and answers with an earlier turn's AIMessage.
  it("does not answer with an earlier turn's AIMessage", () => {
    const answer: Message = { ...USER, messageId: 'answer-1', taskId: 'task-1', parts: [textPart('yes')] };
    const { run } = newRun({ userMessage: answer, existingTask });
    run.start();
    run.process('values', {
      messages: [
        new HumanMessage({ id: 'turn-0', content: 'hi' }),
        new AIMessage({ id: 'ai-0', content: 'answer to an earlier turn' }),
        new HumanMessage({ id: 'user-1', content: 'hello' }),
      ],
    });
    const events = run.finish();
    expect(textOf(lastStatus(events).status?.message)).not.toBe('answer to an earlier turn');
  });
});
