import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { graph as echo } from '@langgraph-a2a/examples/echo';
import { graph as outbox } from '@langgraph-a2a/examples/outbox';
import { graph as artifacts } from '@langgraph-a2a/examples/artifacts';
import { GRAPH_FAILED_MESSAGE, STREAM_DELTA_ARTIFACT_ID } from 'langgraph-a2a';
import { inboxGraph, streamingGraph, throwingGraph, wholeMessageGraph } from './graphs.js';
import {
  cases,
  collect,
  dataPart,
  isTask,
  sdkClient,
  sendRequest,
  startServer,
  textOf,
  textPart,
  userMessage,
  type TestServer,
} from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('the official SDK client over %s', (transport) => {
  it('sends a message and gets the completed task with the answer', async () => {
    server = await startServer(echo);
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('ping')));
    expect(isTask(result)).toBe(true);
    if (!isTask(result)) return;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result.status?.message)).toBe('echo: ping');
    expect(result.history.map((m) => textOf(m))).toEqual(['ping', 'echo: ping']);

    const fetched = await client.getTask({ tenant: '', id: result.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(fetched.status?.message)).toBe('echo: ping');
  });

  it('streams tokens: a task first, deltas that add up to the model text, one lastChunk, terminal last', async () => {
    const text = 'Streaming works token by token.';
    server = await startServer(streamingGraph(text));
    const client = await sdkClient(server.url, transport);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('hi'))));

    expect(frames[0]?.payload?.$case).toBe('task');
    const deltas = frames.flatMap((f) =>
      f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID
        ? [f.payload.value]
        : [],
    );
    expect(deltas.map((d) => textOf(d.artifact)).join('')).toBe(text);
    expect(deltas.filter((d) => d.lastChunk)).toHaveLength(1);
    expect(deltas.at(-1)?.lastChunk).toBe(true);
    expect(deltas[0]?.append).toBe(false);
    expect(deltas.slice(1).every((d) => d.append)).toBe(true);

    const last = frames.at(-1) as StreamResponse;
    expect(last.payload?.$case).toBe('statusUpdate');
    if (last.payload?.$case !== 'statusUpdate') return;
    expect(last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(last.payload.value.status?.message)).toBe(text);
    // Nothing after the terminal frame.
    const terminalIndex = frames.findIndex(
      (f) => f.payload?.$case === 'statusUpdate' && f.payload.value.status?.state === TaskState.TASK_STATE_COMPLETED,
    );
    expect(terminalIndex).toBe(frames.length - 1);
  });

  it('keeps the stream delta out of the durable artifacts', async () => {
    server = await startServer(streamingGraph('abc'));
    const client = await sdkClient(server.url, transport);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('hi'))));
    const taskId = frames[0]?.payload?.$case === 'task' ? frames[0].payload.value.id : '';
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(task.artifacts.map((a) => a.artifactId)).not.toContain(STREAM_DELTA_ARTIFACT_ID);
    expect(textOf(task.status?.message)).toBe('abc');
  });

  it('answers with a direct Message through a2a_outbox, creating no task', async () => {
    server = await startServer(outbox);
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('hello there')));
    if (isTask(result)) throw new Error('expected a direct message');
    expect(textOf(result)).toBe('Hello! (a direct message, no task)');
    expect(result.taskId).toBe('');

    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('hi'))));
    expect(cases(frames)).toEqual(['message']);
  });

  it('applies an a2a_outbox Task patch: artifact, metadata and final message', async () => {
    server = await startServer(outbox);
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('count these four words')));
    if (!isTask(result)) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result.status?.message)).toBe('Counted the words of: count these four words');
    const artifact = result.artifacts.find((a) => a.artifactId === 'word-count');
    expect(artifact?.parts[0]?.content).toEqual({ $case: 'data', value: { words: 4 } });
    expect(result.metadata).toMatchObject({ analyzed: true });
  });

  it('turns every stream helper into artifacts, a message and task metadata', async () => {
    server = await startServer(artifacts);
    const client = await sdkClient(server.url, transport);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('owls'))));
    const statusTexts = frames.flatMap((f) =>
      f.payload?.$case === 'statusUpdate' ? [textOf(f.payload.value.status?.message)] : [],
    );
    expect(statusTexts).toContain('Working on a report about owls…');
    const task = await client.getTask({
      tenant: '',
      id: frames[0]?.payload?.$case === 'task' ? frames[0].payload.value.id : '',
    });
    expect(task.metadata).toMatchObject({ topic: 'owls', words: 1 });
    const byId = new Map(task.artifacts.map((a) => [a.artifactId, a]));
    expect(byId.get('summary')?.parts[0]?.content).toEqual({ $case: 'data', value: { topic: 'owls', length: 4 } });
    const report = byId.get('report');
    const reportText = report?.parts
      .map((p) => (p.content?.$case === 'raw' ? Buffer.from(p.content.value).toString() : ''))
      .join('');
    expect(reportText).toBe('Report about owls\nThe end.\n');
    const reference = task.artifacts.find((a) => a.name === 'Reference');
    expect(reference?.parts[0]?.content).toEqual({ $case: 'url', value: 'https://example.com/reference.pdf' });
    expect(reference?.parts[0]?.mediaType).toBe('application/pdf');
  });

  it('fails the task with a safe message when the graph throws, and keeps serving', async () => {
    server = await startServer(throwingGraph());
    const client = await sdkClient(server.url, transport);
    const result = await client.sendMessage(sendRequest(userMessage('x')));
    if (!isTask(result)) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(result.status?.message)).toBe(GRAPH_FAILED_MESSAGE);
    expect(JSON.stringify(result)).not.toContain('hunter2');

    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('again'))));
    const last = frames.at(-1);
    expect(last?.payload?.$case === 'statusUpdate' && last.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_FAILED,
    );
  });

  it('uses the last AIMessage as the answer, with its id as the messageId', async () => {
    server = await startServer(wholeMessageGraph());
    const client = await sdkClient(server.url, transport);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('q'))));
    // A whole message is not a token delta.
    expect(cases(frames)).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    const last = frames.at(-1);
    if (last?.payload?.$case !== 'statusUpdate') throw new Error('expected a status update');
    expect(last.payload.value.status?.message?.messageId).toBe('ai-1');
    expect(textOf(last.payload.value.status?.message)).toBe('a whole answer');
  });

  it('hands data parts and request metadata to a graph through a2a_inbox', async () => {
    server = await startServer(inboxGraph());
    const client = await sdkClient(server.url, transport);
    const request = sendRequest(userMessage([textPart('look'), dataPart({ n: 1 })]));
    request.metadata = { origin: 'test' };
    const result = await client.sendMessage(request);
    if (!isTask(result)) throw new Error('expected a task');
    expect(textOf(result.status?.message)).toBe('got 2 parts');
    const inbox = result.artifacts.find((a) => a.artifactId === 'inbox')?.parts[0]?.content;
    expect(inbox).toEqual({
      $case: 'data',
      value: {
        parts: [
          { text: 'look', mediaType: 'text/plain', metadata: {} },
          { data: { n: 1 }, mediaType: 'application/json', metadata: {} },
        ],
        metadata: { origin: 'test' },
      },
    });
  });

  it('continues the conversation in the same context (thread)', async () => {
    server = await startServer(echo);
    const client = await sdkClient(server.url, transport);
    const first = await client.sendMessage(sendRequest(userMessage('one')));
    if (!isTask(first)) throw new Error('expected a task');
    const second = await client.sendMessage(sendRequest(userMessage('two', { contextId: first.contextId })));
    if (!isTask(second)) throw new Error('expected a task');
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(textOf(second.status?.message)).toBe('echo: two');
  });
});
