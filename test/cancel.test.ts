import { afterEach, describe, expect, it } from 'vitest';
import { AIMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { emitMessage } from '@langgraph-a2a/stream-helpers';
import { TaskState } from '@a2a-js/sdk';
import { collect, sdkClient, sendRequest, startServer, textOf, userMessage, type TestServer } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A graph whose steps wait on gates the test opens, and which records every step it runs. */
function gatedGraph() {
  const ran: number[] = [];
  const gates = new Map<number, () => void>();
  const stepFinished = new Map<number, Promise<void>>();
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    step: Annotation<number>({ reducer: (_o, n) => n, default: () => 0 }),
  });
  const graph = new StateGraph(State)
    .addNode('work', async (state, config) => {
      const step = state.step + 1;
      ran.push(step);
      let done!: () => void;
      stepFinished.set(step, new Promise<void>((r) => (done = r)));
      emitMessage(`step ${step}`, config);
      await new Promise<void>((resolve) => gates.set(step, resolve));
      done();
      return step === 3 ? { step, messages: [new AIMessage('done')] } : { step };
    })
    .addEdge('__start__', 'work')
    .addConditionalEdges('work', (s) => (s.step < 3 ? 'work' : END))
    .compile();
  return { graph, ran, open: (step: number) => gates.get(step)?.(), finished: (step: number) => stepFinished.get(step) };
}

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
