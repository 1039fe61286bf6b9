import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { InMemoryTaskStore, ServerCallContext } from '@a2a-js/sdk/server';
import { STREAM_DELTA_ARTIFACT_ID } from '../constants.js';
import { AdapterTaskStore } from './adapter-task-store.js';

const context = new ServerCallContext();
const task = (state: TaskState, note: string, artifacts: Task['artifacts'] = []): Task => ({
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state, timestamp: '2025-01-01T00:00:00.000Z', message: undefined },
  artifacts,
  history: [],
  metadata: { note },
});

describe('AdapterTaskStore over the memory store', () => {
  it('keeps a terminal state against later saves, also ones issued in the same turn', async () => {
    const store = new AdapterTaskStore(new InMemoryTaskStore());
    await store.save(task(TaskState.TASK_STATE_WORKING, 'running'), context);
    await Promise.all([
      store.save(task(TaskState.TASK_STATE_CANCELED, 'canceled'), context),
      store.save(task(TaskState.TASK_STATE_COMPLETED, 'late completion'), context),
      store.save(task(TaskState.TASK_STATE_WORKING, 'late working'), context),
    ]);
    expect(await store.load('task-1', context)).toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
      metadata: { note: 'canceled' },
    });
    await store.save(task(TaskState.TASK_STATE_CANCELED, 'annotated'), context);
    expect((await store.load('task-1', context))?.metadata).toEqual({ note: 'annotated' });
  });

  it('skips a save that carries the stream-delta artifact, and merges pending metadata into the next one', async () => {
    const store = new AdapterTaskStore(new InMemoryTaskStore());
    await store.save(task(TaskState.TASK_STATE_WORKING, 'first'), context);
    store.mergeMetadata('task-1', { progress: 0.5 });
    const delta = {
      artifactId: STREAM_DELTA_ARTIFACT_ID,
      name: '',
      description: '',
      parts: [],
      metadata: {},
      extensions: [],
    };
    await store.save(task(TaskState.TASK_STATE_WORKING, 'with delta', [delta]), context);
    expect((await store.load('task-1', context))?.metadata).toEqual({ note: 'first' });
    await store.save(task(TaskState.TASK_STATE_COMPLETED, 'done'), context);
    expect((await store.load('task-1', context))?.metadata).toEqual({ note: 'done', progress: 0.5 });
  });
});

describe('AdapterTaskStore: tasks running here are read from memory (database stores)', () => {
  class CountingStore extends InMemoryTaskStore {
    loads = 0;
    override load(taskId: string, ctx: ServerCallContext) {
      this.loads++;
      return super.load(taskId, ctx);
    }
  }

  it('serves a running task from memory, copies out, and goes back to the store once the run is not here', async () => {
    const inner = new CountingStore();
    const store = new AdapterTaskStore(inner, true);
    const running = new Set(['task-1']);
    store.keepLiveTasks((id) => running.has(id));
    await store.save(task(TaskState.TASK_STATE_WORKING, 'running'), context);
    const first = await store.load('task-1', context);
    first!.metadata = { note: 'mutated by a caller' };
    expect((await store.load('task-1', context))?.metadata).toEqual({ note: 'running' });
    expect(inner.loads).toBe(0);

    // Another instance answers the task after its run here ended: the store has the truth.
    running.delete('task-1');
    await inner.save(task(TaskState.TASK_STATE_COMPLETED, 'answered elsewhere'), context);
    expect((await store.load('task-1', context))?.metadata).toEqual({ note: 'answered elsewhere' });
    expect(inner.loads).toBe(1);
  });

  it('stops serving a task from memory when it ends or is forgotten', async () => {
    const inner = new CountingStore();
    const store = new AdapterTaskStore(inner, true);
    store.keepLiveTasks(() => true);
    await store.save(task(TaskState.TASK_STATE_WORKING, 'running'), context);
    await store.save(task(TaskState.TASK_STATE_COMPLETED, 'done'), context);
    expect((await store.load('task-1', context))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(inner.loads).toBe(1);

    const other = { ...task(TaskState.TASK_STATE_WORKING, 'x'), id: 'task-2' };
    await store.save(other, context);
    store.forget('task-2');
    await store.load('task-2', context);
    expect(inner.loads).toBe(2);
  });
});
