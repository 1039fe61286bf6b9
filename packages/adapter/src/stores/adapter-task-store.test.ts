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
