import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { graph as approval } from '@langgraph-a2a/examples/approval';
import { graph as echo } from '@langgraph-a2a/examples/echo';
import { INTERRUPTS_KEY } from 'langgraph-a2a';
import { authGraph, gatedGraph, parallelInterruptsGraph } from './graphs.js';
import {
  collect,
  dataPart,
  isTask,
  sdkClient,
  sendRequest,
  startServer,
  textOf,
  userMessage,
  type TestServer,
  listRequest,
} from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastStatus = (frames: StreamResponse[]) => {
  const last = frames.at(-1)?.payload;
  if (last?.$case !== 'statusUpdate') throw new Error(`expected a status update last, got ${last?.$case}`);
  return last.value;
};
const dataParts = (parts: Array<{ content?: { $case: string; value?: unknown } }> | undefined) =>
  (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as Record<string, any>] : []));

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('task lifecycle over %s', (transport) => {
  it('input-required with a schema, an invalid answer, then a valid one on the same context (seed 004)', async () => {
    server = await startServer(approval);
    const client = await sdkClient(server.url, transport);

    // 1. The run sends an artifact, then pauses input-required with the prompt, payload and schema.
    const first = await collect(client.sendMessageStream(sendRequest(userMessage('transfer the funds'))));
    const task = first[0]?.payload?.$case === 'task' ? first[0].payload.value : undefined;
    if (!task) throw new Error('expected a task first');
    const plan = first.find(
      (f) => f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === 'plan',
    );
    expect(plan).toBeDefined();
    const waiting = lastStatus(first);
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(waiting.status?.message)).toBe('Approve the plan "transfer the funds"?');
    const [question] = dataParts(waiting.status?.message?.parts);
    expect(question).toMatchObject({ kind: 'input-required', payload: { action: 'transfer the funds', amount: 18 } });
    expect(question!.inputSchema).toMatchObject({
      type: 'object',
      properties: { approved: { type: 'boolean' } },
      required: ['approved'],
    });

    // 2. An invalid answer leaves the task waiting, says what is wrong, and runs nothing.
    const invalid = await collect(
      client.sendMessageStream(
        sendRequest(userMessage([dataPart({ approved: 'yes' })], { taskId: task.id, contextId: task.contextId })),
      ),
    );
    const still = lastStatus(invalid);
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(still.status?.message)).toMatch(
      /does not match the expected input: answer\/approved must be boolean/,
    );
    expect(invalid.some((f) => f.payload?.$case === 'artifactUpdate')).toBe(false);

    // 3. A valid answer on the same context (no taskId, as the seed's client sends it) resumes the task.
    const done = await collect(
      client.sendMessageStream(
        sendRequest(userMessage([dataPart({ approved: true, comment: 'go' })], { contextId: task.contextId })),
      ),
    );
    expect(done[0]?.payload?.$case === 'task' && done[0].payload.value.id).toBe(task.id);
    const final = lastStatus(done);
    expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(final.status?.message)).toBe('Done: transfer the funds. (go)');

    const stored = await client.getTask({ tenant: '', id: task.id });
    expect(stored.artifacts.map((a) => a.artifactId)).toEqual(['plan']);
    expect(stored.metadata?.[INTERRUPTS_KEY]).toEqual([]);
  });

  it('reports every pending interrupt of parallel nodes by id, and resumes them all', async () => {
    server = await startServer(parallelInterruptsGraph());
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('start')));
    if (!isTask(result)) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const questions = dataParts(result.status?.message?.parts);
    expect(questions).toHaveLength(2);
    expect(textOf(result.status?.message)).toContain('left value?');
    expect(textOf(result.status?.message)).toContain('right value?');
    const [left, right] = [
      questions.find((q) => q.payload === 'left value?')!,
      questions.find((q) => q.payload?.hint === 'a number')!,
    ];

    // A bare text answer cannot answer two questions.
    const unclear = await client.sendMessage(sendRequest(userMessage('both?', { taskId: result.id })));
    expect(isTask(unclear) && unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(isTask(unclear) && textOf(unclear.status?.message)).toMatch(/maps each interrupt id/);

    const answered = await client.sendMessage(
      sendRequest(userMessage([dataPart({ [left.interruptId]: 'L', [right.interruptId]: 42 })], { taskId: result.id })),
    );
    if (!isTask(answered)) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered.status?.message)).toBe('left=L right=42');
  });

  it('auth-required: credentials reach the node but not the history, the checkpoint or the log', async () => {
    const graph = authGraph();
    const logLines: string[] = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
    server = await startServer(graph, { logger });
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('let me in')));
    if (!isTask(result)) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(dataParts(result.status?.message?.parts)[0]).toMatchObject({ kind: 'auth-required', scheme: 'Bearer' });

    const secret = 'tok-7f3a9c-very-secret';
    const done = await client.sendMessage(
      sendRequest(userMessage([dataPart({ user: 'ada', token: secret })], { contextId: result.contextId })),
    );
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.status?.message)).toBe(`signed in as ada with a token of ${secret.length} characters`);

    expect(JSON.stringify(await client.getTask({ tenant: '', id: done.id }))).not.toContain(secret);
    const checkpoints = [];
    for await (const c of (graph.checkpointer as { list: (config: object) => AsyncIterable<unknown> }).list({
      configurable: { thread_id: done.contextId },
    })) {
      checkpoints.push(c);
    }
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(JSON.stringify(checkpoints)).not.toContain(secret);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(secret);
  });

  it('cancels a task that waits for input', async () => {
    server = await startServer(approval);
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('wait for me')));
    if (!isTask(result)) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask({ tenant: '', id: result.id, metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: result.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // A new message in the context starts a new task instead of answering the canceled one.
    const next = await client.sendMessage(sendRequest(userMessage('again', { contextId: result.contextId })));
    expect(isTask(next) && next.id).not.toBe(result.id);
  });

  it('returns at once with returnImmediately, and GetTask shows the task advancing', async () => {
    const g = gatedGraph(2);
    server = await startServer(g.graph);
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('go'), { returnImmediately: true }));
    if (!isTask(result)) throw new Error('expected a task');
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(result.status?.state);
    await g.started(1);
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
      (await client.getTask({ tenant: '', id: result.id })).status?.state,
    );
    g.open(1);
    await g.started(2);
    const midway = await client.getTask({ tenant: '', id: result.id });
    expect(textOf(midway.status?.message)).toBe('step 2');
    g.open(2);
    await server.app.a2a.executor.whenIdle();
    const done = await client.getTask({ tenant: '', id: result.id, historyLength: 1 });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.history).toHaveLength(1);
    expect((await client.getTask({ tenant: '', id: result.id, historyLength: 0 })).history).toEqual([]);
  });

  it('a client that drops its stream can resubscribe and receive the rest; the run was not canceled', async () => {
    const g = gatedGraph(2);
    server = await startServer(g.graph);
    const client = await sdkClient(server.url, transport);
    const controller = new AbortController();
    const stream = client.sendMessageStream(sendRequest(userMessage('go')), { signal: controller.signal });
    const firstFrame = await stream.next();
    const task = firstFrame.value?.payload?.$case === 'task' ? firstFrame.value.payload.value : undefined;
    if (!task) throw new Error('expected a task first');
    controller.abort();
    await stream.return(undefined).catch(() => undefined);

    await g.started(1);
    const resubscribed = client.resubscribeTask({ tenant: '', id: task.id });
    const snapshot = await resubscribed.next();
    expect(snapshot.value?.payload?.$case).toBe('task');
    g.open(1);
    await g.started(2);
    g.open(2);
    const rest = await collect(resubscribed);
    const texts = rest.flatMap((f) =>
      f.payload?.$case === 'statusUpdate' ? [textOf(f.payload.value.status?.message)] : [],
    );
    expect(texts).toContain('step 2');
    expect(lastStatus(rest).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('lists tasks with filters and pagination', async () => {
    server = await startServer(echo);
    const client = await sdkClient(server.url, transport);
    const first = await client.sendMessage(sendRequest(userMessage('a')));
    if (!isTask(first)) throw new Error('expected a task');
    for (const t of ['b', 'c']) await client.sendMessage(sendRequest(userMessage(t, { contextId: first.contextId })));
    await client.sendMessage(sendRequest(userMessage('other context')));

    const base = listRequest();
    const inContext = await client.listTasks({ ...base, contextId: first.contextId });
    expect(inContext.tasks).toHaveLength(3);
    expect(inContext.tasks.every((t: Task) => t.contextId === first.contextId)).toBe(true);

    const page1 = await client.listTasks({ ...base, pageSize: 2 });
    expect(page1.tasks).toHaveLength(2);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks({ ...base, pageSize: 2, pageToken: page1.nextPageToken });
    expect(page2.tasks).toHaveLength(2);
    const ids = new Set([...page1.tasks, ...page2.tasks].map((t: Task) => t.id));
    expect(ids.size).toBe(4);

    const completed = await client.listTasks({ ...base, status: TaskState.TASK_STATE_COMPLETED });
    expect(completed.tasks).toHaveLength(4);
    const failed = await client.listTasks({ ...base, status: TaskState.TASK_STATE_FAILED });
    expect(failed.tasks).toHaveLength(0);
  });

  it('returns the existing task for a retried message (same messageId), without running again', async () => {
    const g = gatedGraph(1);
    server = await startServer(g.graph);
    const client = await sdkClient(server.url, transport);
    const message = userMessage('once');
    const pending = client.sendMessage(sendRequest(message));
    await g.started(1);
    g.open(1);
    const first = await pending;
    const retry = await client.sendMessage(sendRequest(message));
    expect(isTask(first) && isTask(retry) && retry.id === first.id).toBe(true);
    expect(g.ran).toEqual([1]);
    const streamed = await collect(client.sendMessageStream(sendRequest(message)));
    expect(streamed.map((f) => f.payload?.$case)).toEqual(['task']);
    expect(g.ran).toEqual([1]);
  });
});

describe('a second message on a busy context', () => {
  async function busy(policy: 'reject' | 'enqueue' | 'interrupt') {
    const g = gatedGraph(1);
    server = await startServer(g.graph, { busyContext: policy });
    const client = await sdkClient(server.url);
    const first = await client.sendMessage(sendRequest(userMessage('first'), { returnImmediately: true }));
    if (!isTask(first)) throw new Error('expected a task');
    await g.started(1);
    return { g, client, first };
  }

  it('is rejected with a clear error by default', async () => {
    const { g, client, first } = await busy('reject');
    await expect(
      client.sendMessage(sendRequest(userMessage('second', { contextId: first.contextId }))),
    ).rejects.toThrow(/is busy: task .* is still running/);
    g.open(1);
  });

  it('waits for the running task with enqueue', async () => {
    const { g, client, first } = await busy('enqueue');
    const second = client.sendMessage(sendRequest(userMessage('second', { contextId: first.contextId })));
    g.open(1);
    await g.started(2);
    g.open(2);
    const result = await second;
    expect(isTask(result) && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await client.getTask({ tenant: '', id: first.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels the running task with interrupt', async () => {
    const { g, client, first } = await busy('interrupt');
    const second = client.sendMessage(sendRequest(userMessage('second', { contextId: first.contextId })));
    await g.started(2);
    // The first run was stopped before its step finished: the second run starts from step 1 again.
    expect(g.ran).toEqual([1, 1]);
    expect((await client.getTask({ tenant: '', id: first.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    g.open(2);
    const result = await second;
    expect(isTask(result) && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    g.open(1);
  });

  it('cancels a task whose stream client disconnects, with cancelOnDisconnect', async () => {
    const g = gatedGraph(1);
    server = await startServer(g.graph, { cancelOnDisconnect: true });
    const client = await sdkClient(server.url);
    const controller = new AbortController();
    const stream = client.sendMessageStream(sendRequest(userMessage('go')), { signal: controller.signal });
    const first = await stream.next();
    const task = first.value?.payload?.$case === 'task' ? first.value.payload.value : undefined;
    if (!task) throw new Error('expected a task');
    await g.started(1);
    controller.abort();
    await stream.return(undefined).catch(() => undefined);
    await server.app.a2a.executor.whenIdle();
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    g.open(1);
  });
});
