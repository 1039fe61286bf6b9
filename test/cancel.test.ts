import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { gatedGraph } from './graphs.js';
import { collect, sdkClient, sendRequest, startServer, textOf, userMessage, type TestServer } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('CancelTask over %s', (transport) => {
  it('aborts the running graph: the task ends canceled and no later step runs', async () => {
    const g = gatedGraph();
    server = await startServer(g.graph);
    const client = await sdkClient(server.url, transport);
    const stream = client.sendMessageStream(sendRequest(userMessage('go')));
    let taskId = '';
    // Read until step 1 announced itself.
    for await (const frame of stream) {
      if (frame.payload?.$case === 'task') taskId = frame.payload.value.id;
      if (frame.payload?.$case === 'statusUpdate' && textOf(frame.payload.value.status?.message) === 'step 1') break;
    }
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    // Let the interrupted step finish its own work: the graph must not schedule step 2.
    g.open(1);
    await g.finished(1);
    await server.app.a2a.executor.whenIdle();
    expect(g.ran).toEqual([1]);

    const task = await client.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // A terminal task is not cancelable again with another state, and stays canceled.
    await expect(collect(client.resubscribeTask({ tenant: '', id: taskId }))).rejects.toThrow();
  });

  it('canceling a completed task gets TaskNotCancelable', async () => {
    const g = gatedGraph();
    server = await startServer(g.graph);
    const client = await sdkClient(server.url, transport);
    const pending = client.sendMessage(sendRequest(userMessage('go')));
    // Open each gate as its step starts.
    for (const step of [1, 2, 3]) {
      while (!g.ran.includes(step)) await new Promise((r) => setImmediate(r));
      g.open(step);
    }
    const done = await pending;
    if (!('status' in done)) throw new Error('expected a task');
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: {} })).rejects.toThrow(/not cancelable/i);
  });
});
