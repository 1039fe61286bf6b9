import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse, type TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { STREAM_DELTA_ARTIFACT_ID } from 'langgraph-a2a';
import { gatedTokenGraph, streamingGraph } from './graphs.js';
import { collect, sdkClient, sendRequest, startServer, textOf, userMessage, type TestServer } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function deltasOf(frames: StreamResponse[]): TaskArtifactUpdateEvent[] {
  return frames.flatMap((f) =>
    f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID
      ? [f.payload.value]
      : [],
  );
}

const lastState = (frames: StreamResponse[]) => {
  const last = frames.at(-1)?.payload;
  return last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
};

describe('coalesceDeltas', () => {
  // A model that hands over many tokens at once is streamed in fewer frames, and
  // every token still reaches every client, once, in order.
  it('delivers every token of 20 concurrent streams in order, in fewer frames than tokens', async () => {
    const text = Array.from({ length: 300 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    server = await startServer(streamingGraph(text), { coalesceDeltas: true });
    const client = await sdkClient(server.url);
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => collect(client.sendMessageStream(sendRequest(userMessage(`run ${i}`))))),
    );
    for (const frames of runs) {
      const deltas = deltasOf(frames);
      expect(deltas.map((d) => textOf(d.artifact)).join('')).toBe(text);
      expect(deltas.length).toBeLessThan(text.length);
      expect(deltas[0]?.append).toBe(false);
      expect(deltas.slice(1).every((d) => d.append)).toBe(true);
      expect(deltas.filter((d) => d.lastChunk)).toHaveLength(1);
      expect(deltas.at(-1)?.lastChunk).toBe(true);
      expect(lastState(frames)).toBe(TaskState.TASK_STATE_COMPLETED);
    }
  });

  it('is on by default, and `coalesceDeltas: false` sends one frame per token chunk', async () => {
    const text = 'one burst of tokens from a model';
    server = await startServer(streamingGraph(text));
    const client = await sdkClient(server.url);
    const coalesced = deltasOf(await collect(client.sendMessageStream(sendRequest(userMessage('default')))));
    expect(coalesced.map((d) => textOf(d.artifact)).join('')).toBe(text);
    expect(coalesced.length).toBeLessThan(text.length);
    await server.close();

    server = await startServer(streamingGraph(text), { coalesceDeltas: false });
    const perChunk = deltasOf(
      await collect((await sdkClient(server.url)).sendMessageStream(sendRequest(userMessage('off')))),
    );
    // One frame per token, then the empty one that closes the delta artifact (lastChunk).
    expect(perChunk.map((d) => textOf(d.artifact))).toEqual([...text, '']);
  });

  it('leaves the task GetTask returns as without coalescing: the answer, the history, no delta artifact', async () => {
    const text = 'The final answer, streamed in one burst.';
    server = await startServer(streamingGraph(text), { coalesceDeltas: true });
    const client = await sdkClient(server.url);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('question'))));
    const taskId = frames[0]?.payload?.$case === 'task' ? frames[0].payload.value.id : '';
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe(text);
    expect(task.history.map((m) => textOf(m))).toEqual(['question', text]);
    expect(task.artifacts.map((a) => a.artifactId)).not.toContain(STREAM_DELTA_ARTIFACT_ID);
  });

  it('a client that resubscribes mid-stream receives the rest of the tokens in order, then the end', async () => {
    const before = ['one ', 'two ', 'three '];
    const after = ['four ', 'five ', 'six'];
    const g = gatedTokenGraph(before, after);
    server = await startServer(g.graph, { coalesceDeltas: true });
    const client = await sdkClient(server.url);
    const first = client.sendMessageStream(sendRequest(userMessage('count')));
    const head = await first.next();
    const taskId = head.value?.payload?.$case === 'task' ? head.value.payload.value.id : '';
    await g.waiting;

    const second = client.resubscribeTask({ tenant: '', id: taskId });
    const snapshot = await second.next();
    expect(snapshot.value?.payload?.$case).toBe('task');
    g.open();
    const [firstRest, secondRest] = await Promise.all([collect(first), collect(second)]);

    expect(
      deltasOf(firstRest)
        .map((d) => textOf(d.artifact))
        .join(''),
    ).toBe([...before, ...after].join(''));
    const resubscribed = deltasOf(secondRest)
      .map((d) => textOf(d.artifact))
      .join('');
    // It joined while the run waited: it sees what came after, whole and in order.
    expect(resubscribed).toBe(after.join(''));
    expect(lastState(firstRest)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(lastState(secondRest)).toBe(TaskState.TASK_STATE_COMPLETED);
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(textOf(task.status?.message)).toBe([...before, ...after].join(''));
  });
});
