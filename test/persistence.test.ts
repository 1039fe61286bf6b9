import { afterEach, describe, expect, it } from 'vitest';
import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
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

      it('never lets a save change the state of a terminal task, whoever writes (database guard)', async () => {
        const persistence = await openPersistence(parseStoreSetting(await backend.fresh()));
        try {
          expect(persistence.keepsTerminalStates).toBe(true);
          // The raw task store, without the server's wrapper: the database itself refuses.
          const tasks = persistence.taskStore;
          const context = new ServerCallContext();
          const task = (state: TaskState, note: string): Task => ({
            id: 'task-1',
            contextId: 'ctx-1',
            status: { state, timestamp: new Date().toISOString(), message: undefined },
            artifacts: [],
            history: [],
            metadata: { note },
          });
          await tasks.save(task(TaskState.TASK_STATE_WORKING, 'running'), context);
          await tasks.save(task(TaskState.TASK_STATE_FAILED, 'settled'), context);
          // Late events of a run settled elsewhere, some at once.
          await Promise.all([
            tasks.save(task(TaskState.TASK_STATE_WORKING, 'late working'), context),
            tasks.save(task(TaskState.TASK_STATE_COMPLETED, 'late completion'), context),
          ]);
          expect(await tasks.load('task-1', context)).toMatchObject({
            status: { state: TaskState.TASK_STATE_FAILED },
            metadata: { note: 'settled' },
          });
          // A save that keeps the terminal state goes through (metadata merged after the end).
          await tasks.save(task(TaskState.TASK_STATE_FAILED, 'annotated'), context);
          expect((await tasks.load('task-1', context))?.metadata).toEqual({ note: 'annotated' });
        } finally {
          await persistence.close();
        }
      });
    },
  );
}
