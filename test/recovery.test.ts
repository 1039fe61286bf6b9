import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { RESTARTED_MESSAGE } from 'langgraph-a2a';
import { backends, PG_SKIP_REASON } from './stores-support.js';
import { collect, isTask, sdkClient, sendRequest, spawnServe, textOf, userMessage } from './support.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** `langgraph-a2a serve` of the long-running example as a child process; resolves with its URL. */
async function serve(store: string, recovery: 'fail' | 'resume') {
  const started = await spawnServe(
    ['examples/graphs/src/long-running.ts', '--store', store, '--recovery', recovery, '--instance-id', 'instance-a'],
    { LONG_RUNNING_STEPS: '3', LONG_RUNNING_STEP_MS: '300' },
  );
  children.push(started.proc);
  return started;
}

/** Starts a task and returns once its step 2 has begun. */
async function startAndReachStep2(client: Client): Promise<Task> {
  const task = await client.sendMessage(sendRequest(userMessage('work'), { returnImmediately: true }));
  if (!isTask(task)) throw new Error('expected a task');
  for await (const frame of client.resubscribeTask({ tenant: '', id: task.id })) {
    if (frame.payload?.$case === 'statusUpdate' && textOf(frame.payload.value.status?.message) === 'step 2 of 3') break;
  }
  return task;
}

async function kill9(proc: ChildProcess) {
  proc.kill('SIGKILL');
  await once(proc, 'exit');
}

for (const backend of backends) {
  describe.skipIf(!backend.available)(
    `crash recovery on ${backend.name}${backend.available ? '' : ` (skipped: ${PG_SKIP_REASON})`}`,
    () => {
      it('policy fail: after kill -9 and a restart, the cut-short task is failed and completed ones are intact', async () => {
        const store = await backend.fresh();
        const first = await serve(store, 'fail');
        let client = await sdkClient(first.url);
        const done = await client.sendMessage(sendRequest(userMessage('first')));
        expect(isTask(done) && done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        const cut = await startAndReachStep2(client);
        await kill9(first.proc);

        const restarted = await serve(store, 'fail');
        client = await sdkClient(restarted.url);
        const settled = await client.getTask({ tenant: '', id: cut.id });
        expect(settled.status?.state).toBe(TaskState.TASK_STATE_FAILED);
        expect(textOf(settled.status?.message)).toBe(RESTARTED_MESSAGE);
        const intact = await client.getTask({ tenant: '', id: (done as Task).id });
        expect(intact.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOf(intact.status?.message)).toBe('finished 3 steps');
        expect(intact.history.map((m) => textOf(m))).toContain('first');
      });

      it('policy resume: after kill -9 and a restart, the task continues from its checkpoint and completes', async () => {
        const store = await backend.fresh();
        const first = await serve(store, 'resume');
        let client = await sdkClient(first.url);
        const cut = await startAndReachStep2(client);
        await kill9(first.proc);

        const restarted = await serve(store, 'resume');
        client = await sdkClient(restarted.url);
        // Follow the recovered run until it has ended (event-driven: a resubscribe ends
        // with the run; one made after the last event ends at once with the snapshot).
        let final = await client.getTask({ tenant: '', id: cut.id });
        for (let i = 0; i < 20 && final.status?.state === TaskState.TASK_STATE_WORKING; i++) {
          await collect(client.resubscribeTask({ tenant: '', id: cut.id })).catch(() => []);
          final = await client.getTask({ tenant: '', id: cut.id });
        }
        expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOf(final.status?.message)).toBe('finished 3 steps');
        // Step 1 was checkpointed before the kill and did not run again.
        const steps = final.history.map((m) => textOf(m)).filter((t) => t.startsWith('step '));
        expect(steps.filter((t) => t === 'step 1 of 3')).toHaveLength(1);
        expect(steps).toContain('step 3 of 3');
      });
    },
  );
}
