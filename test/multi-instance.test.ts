import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { graph as approvalGraph } from '@langgraph-a2a/examples/approval';
import { graph as echoGraph } from '@langgraph-a2a/examples/echo';
import { RESTARTED_MESSAGE, STREAM_DELTA_ARTIFACT_ID } from 'langgraph-a2a';
import { freshPostgresUrl, PG_SKIP_REASON, TEST_PG } from './stores-support.js';
import { gatedGraph, gatedTokenGraph } from './graphs.js';
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

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Two instances on one PostgreSQL database, each with its own graph object. */
async function twoInstances<G extends { graph: Parameters<typeof startServer>[0] }>(make: () => G) {
  const store = await freshPostgresUrl();
  const a = make();
  const b = make();
  const serverA = await startServer(a.graph, { store, instanceId: 'instance-a' });
  const serverB = await startServer(b.graph, { store, instanceId: 'instance-b' });
  servers.push(serverA, serverB);
  return { a, b, clientA: await sdkClient(serverA.url), clientB: await sdkClient(serverB.url) };
}

describe.skipIf(!TEST_PG)(
  `several instances on one PostgreSQL${TEST_PG ? '' : ` (skipped: ${PG_SKIP_REASON})`}`,
  () => {
    it('a task started on A is fetched, listed and followed live from B', async () => {
      const { a, clientA, clientB } = await twoInstances(() => gatedGraph(2));
      const task = await clientA.sendMessage(sendRequest(userMessage('go'), { returnImmediately: true }));
      if (!isTask(task)) throw new Error('expected a task');
      await a.started(1);

      // B reads what A has stored so far: the task exists and is not finished.
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
        (await clientB.getTask({ tenant: '', id: task.id })).status?.state,
      );
      const listed = await clientB.listTasks(listRequest({ contextId: task.contextId }));
      expect(listed.tasks.map((t: Task) => t.id)).toEqual([task.id]);

      const live = clientB.resubscribeTask({ tenant: '', id: task.id });
      const snapshot = await live.next();
      expect(snapshot.value?.payload?.$case).toBe('task');
      a.open(1);
      await a.started(2);
      a.open(2);
      const rest = await collect(live);
      const texts = rest.flatMap((f) =>
        f.payload?.$case === 'statusUpdate' ? [textOf(f.payload.value.status?.message)] : [],
      );
      expect(texts).toContain('step 2');
      const last = rest.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('streams the tokens of a run on A live to a subscriber on B, every one, in order', async () => {
      const store = await freshPostgresUrl();
      // Identical tokens, one frame each: the relay must not fold equal notifications.
      const tokens = Array.from({ length: 40 }, () => 'la ');
      const a = gatedTokenGraph([], tokens);
      const serverA = await startServer(a.graph, { store, instanceId: 'tokens-a', coalesceDeltas: false });
      const serverB = await startServer(gatedTokenGraph([], tokens).graph, { store, instanceId: 'tokens-b' });
      servers.push(serverA, serverB);
      const clientA = await sdkClient(serverA.url);
      const clientB = await sdkClient(serverB.url);
      const task = await clientA.sendMessage(sendRequest(userMessage('sing'), { returnImmediately: true }));
      if (!isTask(task)) throw new Error('expected a task');
      await a.waiting;

      const live = clientB.resubscribeTask({ tenant: '', id: task.id });
      expect((await live.next()).value?.payload?.$case).toBe('task');
      a.open();
      const rest = await collect(live);
      const deltas = rest.flatMap((f) =>
        f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID
          ? [textOf(f.payload.value.artifact)]
          : [],
      );
      expect(deltas.filter((t) => t !== '')).toEqual(tokens);
      const last = rest.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('a cancel sent to B stops the graph running on A', async () => {
      const { a, clientA, clientB } = await twoInstances(() => gatedGraph(3));
      const task = await clientA.sendMessage(sendRequest(userMessage('go'), { returnImmediately: true }));
      if (!isTask(task)) throw new Error('expected a task');
      await a.started(1);
      const canceled = await clientB.cancelTask({ tenant: '', id: task.id, metadata: {} });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      a.open(1);
      await a.finished(1);
      expect(a.ran).toEqual([1]);
      expect((await clientA.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it('a task waiting for input on A is answered on B', async () => {
      const { clientA, clientB } = await twoInstances(() => ({
        graph: approvalGraph.builder.compile({ name: 'approval' }),
      }));
      const waiting = await clientA.sendMessage(sendRequest(userMessage('deploy')));
      if (!isTask(waiting)) throw new Error('expected a task');
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = await clientB.sendMessage(
        sendRequest(userMessage([dataPart({ approved: true })], { contextId: waiting.contextId })),
      );
      expect(isTask(done) && done.id).toBe(waiting.id);
      expect(isTask(done) && textOf(done.status?.message)).toBe('Done: deploy.');
    });

    it('200 tasks started concurrently across two instances all reach a terminal state', async () => {
      const { clientA, clientB } = await twoInstances(() => ({ graph: echoGraph.builder.compile({ name: 'echo' }) }));
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? clientA : clientB).sendMessage(sendRequest(userMessage(`n${i}`))),
        ),
      );
      expect(results.every((r) => isTask(r) && r.status?.state === TaskState.TASK_STATE_COMPLETED)).toBe(true);
      const ids = new Set<string>();
      let pageToken = '';
      do {
        const page = await clientB.listTasks(listRequest({ pageSize: 100, pageToken }));
        for (const t of page.tasks) {
          expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
          ids.add(t.id);
        }
        pageToken = page.nextPageToken;
      } while (pageToken);
      expect(ids.size).toBe(200);
      for (const r of results) expect(ids.has((r as Task).id)).toBe(true);
    });
  },
);

describe.skipIf(!TEST_PG)(
  `an instance that stops sending heartbeats${TEST_PG ? '' : ` (skipped: ${PG_SKIP_REASON})`}`,
  () => {
    it('has its run settled by another instance, and a subscriber there sees the failure', async () => {
      const store = await freshPostgresUrl();
      const a = gatedGraph(2);
      const b = gatedGraph(2);
      // A never refreshes its heartbeat during the test; B counts a run as orphaned at once.
      const serverA = await startServer(a.graph, { store, instanceId: 'quiet-a', heartbeatMs: 3_600_000 });
      const serverB = await startServer(b.graph, { store, instanceId: 'watch-b', heartbeatMs: 3_600_000, leaseMs: 1 });
      servers.push(serverA, serverB);
      const clientA = await sdkClient(serverA.url);
      const clientB = await sdkClient(serverB.url);
      const task = await clientA.sendMessage(sendRequest(userMessage('go'), { returnImmediately: true }));
      if (!isTask(task)) throw new Error('expected a task');
      await a.started(1);

      const live = clientB.resubscribeTask({ tenant: '', id: task.id });
      expect((await live.next()).value?.payload?.$case).toBe('task');
      expect(await serverB.app.a2a.settleOrphans()).toEqual([task.id]);
      const rest = await collect(live);
      const last = rest.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(last?.$case === 'statusUpdate' && textOf(last.value.status?.message)).toBe(RESTARTED_MESSAGE);
      // A was not dead after all: its late events do not overwrite the settled state.
      a.open(1);
      await a.started(2);
      a.open(2);
      await serverA.app.a2a.executor.whenIdle();
      expect((await clientA.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_FAILED);
    });
  },
);
