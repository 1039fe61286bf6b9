import { describe, expect, it } from 'vitest';
import { Annotation, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { emitData, emitFile, emitMessage, emitTaskMetadata, StreamHelperError } from './emit.js';
import { HELPER_TAG, RESERVED_PREFIX, helperEventSchema } from './schema.js';

const BYTES = Buffer.from('hello file').toString('base64');

type Emit = () => boolean;

/** A one-node graph that runs `body` in its node, streamed with streamMode 'custom'. */
async function customChunks(
  body: (config: LangGraphRunnableConfig) => void,
  chunks: unknown[] = [],
): Promise<unknown[]> {
  const State = Annotation.Root({ done: Annotation<boolean> });
  const graph = new StateGraph(State)
    .addNode('node', (_state, config) => {
      body(config);
      return { done: true };
    })
    .addEdge('__start__', 'node')
    .compile();
  for await (const chunk of await graph.stream({ done: false }, { streamMode: 'custom' })) chunks.push(chunk);
  return chunks;
}

describe('payload validation', () => {
  it.each<{ name: string; emit: Emit; message: RegExp }>([
    {
      name: 'a file with both url and bytes',
      emit: () => emitFile({ url: 'https://example.com/a', bytes: BYTES }),
      message: /exactly one of url or bytes/,
    },
    {
      name: 'a file with neither url nor bytes',
      emit: () => emitFile({ mediaType: 'image/png' }),
      message: /exactly one of url or bytes/,
    },
    {
      name: 'a file with invalid base64',
      emit: () => emitFile({ bytes: 'not base64!!' }),
      message: /invalid file payload/,
    },
    { name: 'a file with a bad url', emit: () => emitFile({ url: 'not a url' }), message: /invalid file payload/ },
    {
      name: 'a file with an empty media type',
      emit: () => emitFile({ url: 'https://example.com/a', mediaType: '' }),
      message: /invalid file payload/,
    },
    {
      name: 'reserved task metadata keys',
      emit: () => emitTaskMetadata({ [`${RESERVED_PREFIX}interrupts`]: [] }),
      message: /reserved for the server/,
    },
    {
      name: 'reserved artifact metadata keys',
      emit: () => emitData({ data: 1, metadata: { [`${RESERVED_PREFIX}streamedAs`]: 'x' } }),
      message: /reserved for the server/,
    },
    {
      name: 'reserved message metadata keys',
      emit: () => emitMessage({ text: 'hi', metadata: { [`${RESERVED_PREFIX}x`]: 1 } }),
      message: /reserved/,
    },
    { name: 'an empty message', emit: () => emitMessage(''), message: /invalid message payload/ },
    {
      name: 'data that is not JSON',
      emit: () => emitData({ data: new Date() as never }),
      message: /invalid data payload/,
    },
  ])('rejects $name with a StreamHelperError', ({ emit, message }) => {
    let error: unknown;
    try {
      emit();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StreamHelperError);
    expect((error as StreamHelperError).name).toBe('StreamHelperError');
    expect((error as StreamHelperError).message).toMatch(message);
    expect((error as StreamHelperError).issues.length).toBeGreaterThan(0);
  });

  it.each<{ name: string; emit: (config: LangGraphRunnableConfig) => boolean }>([
    { name: 'a file by url', emit: (config) => emitFile({ url: 'https://example.com/a.pdf' }, config) },
    {
      name: 'a file by bytes',
      emit: (config) => emitFile({ bytes: BYTES, mediaType: 'text/plain', filename: 'a.txt' }, config),
    },
    {
      name: 'task metadata with keys that merely contain the prefix',
      emit: (config) => emitTaskMetadata({ [`x-${RESERVED_PREFIX}`]: 1, 'langgraph-a2a': 2 }, config),
    },
    { name: 'data: a string', emit: (config) => emitData({ data: 'text' }, config) },
    { name: 'data: a number', emit: (config) => emitData({ data: 42 }, config) },
    { name: 'data: null', emit: (config) => emitData({ data: null }, config) },
    { name: 'data: an array', emit: (config) => emitData({ data: [1, 'two', false, null] }, config) },
    { name: 'data: a nested object', emit: (config) => emitData({ data: { a: { b: [{ c: true }] } } }, config) },
    { name: 'a message as a string', emit: (config) => emitMessage('hi', config) },
  ])('accepts $name', async ({ emit }) => {
    const returned: boolean[] = [];
    const chunks = await customChunks((config) => returned.push(emit(config)));
    expect(returned).toEqual([true]);
    expect(chunks).toHaveLength(1);
  });
});

describe('outside a run', () => {
  // Regression: resolveWriter() let getWriter() throw "Config not retrievable" when no run
  // was active (a node unit test) instead of returning false.
  it.each<{ name: string; emit: Emit }>([
    { name: 'emitData', emit: () => emitData({ data: 1 }) },
    { name: 'emitFile', emit: () => emitFile({ url: 'https://example.com/a.pdf' }) },
    { name: 'emitMessage', emit: () => emitMessage('hi') },
    { name: 'emitTaskMetadata', emit: () => emitTaskMetadata({ progress: 1 }) },
  ])('$name returns false (no writer)', ({ emit }) => {
    expect(emit()).toBe(false);
  });

  it('validation still runs first: an invalid payload throws a StreamHelperError', () => {
    expect(() => emitTaskMetadata({ [`${RESERVED_PREFIX}x`]: 1 })).toThrow(StreamHelperError);
  });

  // graph.invoke() installs a writer that drops custom payloads: the helper has a writer.
  it('inside graph.invoke (not streamed), a helper is a silent no-op that returns true', async () => {
    const State = Annotation.Root({ returned: Annotation<boolean> });
    const graph = new StateGraph(State)
      .addNode('node', (_state, config) => ({ returned: emitData({ data: 1 }, config) }))
      .addEdge('__start__', 'node')
      .compile();
    const result = await graph.invoke({ returned: false });
    expect(result.returned).toBe(true);
  });
});

describe('inside a graph streamed with streamMode "custom"', () => {
  it.each<{ name: string; emit: (config: LangGraphRunnableConfig | undefined) => boolean; chunk: unknown }>([
    {
      name: 'emitFile by url, defaults applied',
      emit: (config) => emitFile({ url: 'https://example.com/a.pdf' }, config),
      chunk: {
        [HELPER_TAG]: 1,
        type: 'file',
        payload: {
          url: 'https://example.com/a.pdf',
          mediaType: 'application/octet-stream',
          append: false,
          lastChunk: true,
        },
      },
    },
    {
      name: 'emitFile by bytes, fields kept',
      emit: (config) =>
        emitFile(
          { bytes: BYTES, mediaType: 'text/plain', filename: 'a.txt', artifactId: 'f', append: true, lastChunk: false },
          config,
        ),
      chunk: {
        [HELPER_TAG]: 1,
        type: 'file',
        payload: {
          bytes: BYTES,
          mediaType: 'text/plain',
          filename: 'a.txt',
          artifactId: 'f',
          append: true,
          lastChunk: false,
        },
      },
    },
    {
      name: 'emitData, defaults applied',
      emit: (config) => emitData({ data: { rows: [1, 2] }, name: 'Table' }, config),
      chunk: {
        [HELPER_TAG]: 1,
        type: 'data',
        payload: { data: { rows: [1, 2] }, name: 'Table', append: false, lastChunk: true },
      },
    },
    {
      name: 'emitMessage with a string',
      emit: (config) => emitMessage('Searching...', config),
      chunk: { [HELPER_TAG]: 1, type: 'message', payload: { text: 'Searching...' } },
    },
    {
      name: 'emitMessage with metadata',
      emit: (config) => emitMessage({ text: 'Step 2', metadata: { step: 2 } }, config),
      chunk: { [HELPER_TAG]: 1, type: 'message', payload: { text: 'Step 2', metadata: { step: 2 } } },
    },
    {
      name: 'emitTaskMetadata',
      emit: (config) => emitTaskMetadata({ progress: 0.5 }, config),
      chunk: { [HELPER_TAG]: 1, type: 'task-metadata', payload: { metadata: { progress: 0.5 } } },
    },
  ])('$name writes the tagged payload', async ({ emit, chunk }) => {
    // Once with the node's config, once with none: getWriter() finds the run by itself.
    for (const pass of ['config', 'implicit'] as const) {
      const returned: boolean[] = [];
      const chunks = await customChunks((config) => returned.push(emit(pass === 'config' ? config : undefined)));
      expect(returned, pass).toEqual([true]);
      expect(chunks, pass).toEqual([chunk]);
      // What the helpers write is what the server accepts.
      expect(helperEventSchema.safeParse(chunks[0]).success, pass).toBe(true);
    }
  });

  it('an invalid payload throws inside the node and writes nothing', async () => {
    const written: unknown[] = [];
    const run = customChunks((config) => {
      config.writer?.('before');
      emitFile({ url: 'https://example.com/a', bytes: BYTES }, config);
    }, written);
    await expect(run).rejects.toBeInstanceOf(StreamHelperError);
    expect(written).toEqual(['before']);
  });

  it('several helpers in one node write in call order', async () => {
    const chunks = await customChunks((config) => {
      emitMessage('one', config);
      emitData({ data: 2 }, config);
      emitTaskMetadata({ three: 3 }, config);
    });
    expect(chunks.map((c) => (c as { type: string }).type)).toEqual(['message', 'data', 'task-metadata']);
  });
});
