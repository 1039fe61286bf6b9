import { afterEach, describe, expect, it } from 'vitest';
import { STREAM_DELTA_ARTIFACT_ID } from 'langgraph-a2a';
import { streamingGraph } from './graphs.js';
import { collect, sdkClient, sendRequest, startServer, textOf, userMessage, type TestServer } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('concurrent streams', () => {
  // Regression: with LangChain's background callbacks, overlapping graph.stream runs
  // ended before all their messages-mode chunks arrived (DESIGN.md, "Known hazard").
  it('delivers every token of 25 overlapping streams', async () => {
    const text = 'Every single token of every concurrent run must arrive at its own client.';
    server = await startServer(streamingGraph(text));
    const client = await sdkClient(server.url);
    const runs = await Promise.all(
      Array.from({ length: 25 }, (_, i) => collect(client.sendMessageStream(sendRequest(userMessage(`run ${i}`))))),
    );
    const taskIds = new Set<string>();
    for (const frames of runs) {
      const deltas = frames.flatMap((f) =>
        f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID
          ? [f.payload.value]
          : [],
      );
      expect(deltas.map((d) => textOf(d.artifact)).join('')).toBe(text);
      expect(deltas.filter((d) => d.lastChunk)).toHaveLength(1);
      const first = frames[0]?.payload;
      if (first?.$case === 'task') taskIds.add(first.value.id);
      // Frames of a stream belong to its own task only.
      const ids = new Set(
        frames.map((f) =>
          f.payload?.$case === 'task' ? f.payload.value.id : (f.payload?.value as { taskId: string }).taskId,
        ),
      );
      expect(ids.size).toBe(1);
    }
    expect(taskIds.size).toBe(25);
  });
});
