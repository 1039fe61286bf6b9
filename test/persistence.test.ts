import { afterEach, describe, expect, it } from 'vitest';
import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { TaskState, type Task } from '@a2a-js/sdk';
import { graph as approvalGraph } from '@langgraph-a2a/examples/approval';
import { openPersistence, parseStoreSetting } from 'langgraph-a2a';
import { backends, PG_SKIP_REASON } from './stores-support.js';
import {
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

/** Counts the user's turns in its thread: proves the checkpoint survived. */
const turnCounter = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('count', (s) => ({
      messages: [new AIMessage(`turn ${s.messages.filter((m) => m.getType() === 'human').length}`)],
    }))
    .addEdge('__start__', 'count')
    .compile();

/** The approval example, compiled anew without a checkpointer so each server attaches its store's. */
const approval = () => {
  const g = approvalGraph.builder.compile({ name: 'approval' });
  return g;
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

for (const backend of backends) {
  describe.skipIf(!backend.available)(
    `${backend.name} store${backend.available ? '' : ` (skipped: ${PG_SKIP_REASON})`}`,
    () => {
      it('keeps completed tasks, history, artifacts, threads and message ids across a restart', async () => {
        const store = await backend.fresh();
        server = await startServer(turnCounter(), { store });
        let client = await sdkClient(server.url);
        const first = await client.sendMessage(sendRequest(userMessage('one')));
        if (!isTask(first)) throw new Error('expected a task');
        const retried = userMessage('two', { contextId: first.contextId });
        const second = await client.sendMessage(sendRequest(retried));
        expect(isTask(second) && textOf(second.status?.message)).toBe('turn 2');
        await server.close();

        server = await startServer(turnCounter(), { store });
        client = await sdkClient(server.url);
        const again = await client.getTask({ tenant: '', id: first.id });
        expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(again.history.map((m) => textOf(m))).toEqual(['one', 'turn 1']);
        const listed = await client.listTasks(listRequest({ contextId: first.contextId }));
        expect(listed.tasks).toHaveLength(2);
        // The thread's checkpoint survived: this is the third turn.
        const third = await client.sendMessage(sendRequest(userMessage('three', { contextId: first.contextId })));
        expect(isTask(third) && textOf(third.status?.message)).toBe('turn 3');
        // A retried message after the restart returns its task, not a new run.
        const retry = await client.sendMessage(sendRequest(retried));
        expect(isTask(retry) && isTask(second) && retry.id).toBe((second as Task).id);
      });

      it('resumes a task that was waiting for input before the restart', async () => {
        const store = await backend.fresh();
        server = await startServer(approval(), { store });
        let client = await sdkClient(server.url);
        const waiting = await client.sendMessage(sendRequest(userMessage('ship it')));
        if (!isTask(waiting)) throw new Error('expected a task');
        expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        await server.close();

        server = await startServer(approval(), { store });
        client = await sdkClient(server.url);
        const done = await client.sendMessage(
          sendRequest(userMessage([dataPart({ approved: true })], { contextId: waiting.contextId })),
        );
        if (!isTask(done)) throw new Error('expected a task');
        expect(done.id).toBe(waiting.id);
        expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOf(done.status?.message)).toBe('Done: ship it.');
        expect(done.artifacts.map((a) => a.artifactId)).toEqual(['plan']);
      });

      it('creates its tables idempotently, also from two instances at once', async () => {
        const store = await backend.fresh();
        const opened = await Promise.all([
          openPersistence(parseStoreSetting(store)),
          openPersistence(parseStoreSetting(store)),
        ]);
        await Promise.all(opened.map((p) => p.close()));
        const reopened = await openPersistence(parseStoreSetting(store));
        await reopened.ledger.rememberMessage('m-1', 't-1');
        expect(await reopened.ledger.taskForMessage('m-1')).toBe('t-1');
        await reopened.close();
      });
    },
  );
}
