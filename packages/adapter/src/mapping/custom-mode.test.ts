import { describe, expect, it } from 'vitest';
import { HELPER_TAG, RESERVED_PREFIX, type HelperEvent } from '@langgraph-a2a/stream-helpers';
import type { Part } from '@a2a-js/sdk';
import { filePart, mapCustomChunk } from './custom-mode.js';

const PNG_BASE64 = Buffer.from('png bytes').toString('base64');

describe('mapCustomChunk', () => {
  it.each<{ name: string; chunk: unknown; event: HelperEvent }>([
    {
      name: 'a file by url, with defaults applied',
      chunk: { [HELPER_TAG]: 1, type: 'file', payload: { url: 'https://example.com/a.pdf' } },
      event: {
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
      name: 'a file by bytes, with its own fields',
      chunk: {
        [HELPER_TAG]: 1,
        type: 'file',
        payload: {
          bytes: PNG_BASE64,
          mediaType: 'image/png',
          filename: 'a.png',
          artifactId: 'img',
          append: true,
          lastChunk: false,
        },
      },
      event: {
        [HELPER_TAG]: 1,
        type: 'file',
        payload: {
          bytes: PNG_BASE64,
          mediaType: 'image/png',
          filename: 'a.png',
          artifactId: 'img',
          append: true,
          lastChunk: false,
        },
      },
    },
    {
      name: 'data',
      chunk: {
        [HELPER_TAG]: 1,
        type: 'data',
        payload: { data: { rows: [1, 2] }, name: 'table', metadata: { source: 'db' } },
      },
      event: {
        [HELPER_TAG]: 1,
        type: 'data',
        payload: { data: { rows: [1, 2] }, name: 'table', metadata: { source: 'db' }, append: false, lastChunk: true },
      },
    },
    {
      name: 'a message',
      chunk: { [HELPER_TAG]: 1, type: 'message', payload: { text: 'Searching...' } },
      event: { [HELPER_TAG]: 1, type: 'message', payload: { text: 'Searching...' } },
    },
    {
      name: 'task metadata',
      chunk: { [HELPER_TAG]: 1, type: 'task-metadata', payload: { metadata: { progress: 0.5 } } },
      event: { [HELPER_TAG]: 1, type: 'task-metadata', payload: { metadata: { progress: 0.5 } } },
    },
  ])('$name -> helper', ({ chunk, event }) => {
    expect(mapCustomChunk(chunk)).toEqual({ kind: 'helper', event });
  });

  it.each<{ name: string; chunk: unknown }>([
    { name: 'an unknown type', chunk: { [HELPER_TAG]: 1, type: 'video', payload: {} } },
    { name: 'no type', chunk: { [HELPER_TAG]: 1, payload: { text: 'x' } } },
    { name: 'a wrong tag version', chunk: { [HELPER_TAG]: 2, type: 'message', payload: { text: 'x' } } },
    { name: 'no payload', chunk: { [HELPER_TAG]: 1, type: 'message' } },
    {
      name: 'a file with both url and bytes',
      chunk: { [HELPER_TAG]: 1, type: 'file', payload: { url: 'https://e.com/a', bytes: PNG_BASE64 } },
    },
    {
      name: 'a file with neither url nor bytes',
      chunk: { [HELPER_TAG]: 1, type: 'file', payload: { mediaType: 'image/png' } },
    },
    { name: 'a file with bad base64', chunk: { [HELPER_TAG]: 1, type: 'file', payload: { bytes: 'not base64!!' } } },
    { name: 'a message with empty text', chunk: { [HELPER_TAG]: 1, type: 'message', payload: { text: '' } } },
    {
      name: 'task metadata under the reserved prefix',
      chunk: {
        [HELPER_TAG]: 1,
        type: 'task-metadata',
        payload: { metadata: { [`${RESERVED_PREFIX}interrupts`]: [] } },
      },
    },
    {
      name: 'data with reserved artifact metadata',
      chunk: { [HELPER_TAG]: 1, type: 'data', payload: { data: 1, metadata: { [`${RESERVED_PREFIX}x`]: 1 } } },
    },
    { name: 'data that is not JSON', chunk: { [HELPER_TAG]: 1, type: 'data', payload: { data: () => 1 } } },
  ])('$name -> invalid', ({ chunk }) => {
    const result = mapCustomChunk(chunk);
    expect(result.kind).toBe('invalid');
    expect(result.kind === 'invalid' && result.reason.length).toBeGreaterThan(0);
  });

  it.each<{ name: string; chunk: unknown }>([
    { name: 'undefined', chunk: undefined },
    { name: 'null', chunk: null },
    { name: 'a string', chunk: 'progress 50%' },
    { name: 'a number', chunk: 42 },
    { name: 'an array', chunk: [HELPER_TAG, 1] },
    { name: 'an object of the graph', chunk: { progress: 0.5 } },
    { name: 'a helper shape without the tag', chunk: { type: 'message', payload: { text: 'x' } } },
  ])('$name -> ignored', ({ chunk }) => {
    expect(mapCustomChunk(chunk)).toEqual({ kind: 'ignored' });
  });
});

describe('filePart', () => {
  it.each<{ name: string; file: Parameters<typeof filePart>[0]; expected: Part }>([
    {
      name: 'a url',
      file: {
        url: 'https://example.com/a.pdf',
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        append: false,
        lastChunk: true,
      },
      expected: {
        content: { $case: 'url', value: 'https://example.com/a.pdf' },
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        metadata: {},
      },
    },
    {
      name: 'base64 bytes, without a filename',
      file: { bytes: PNG_BASE64, mediaType: 'image/png', append: false, lastChunk: true },
      expected: {
        content: { $case: 'raw', value: Buffer.from('png bytes') },
        mediaType: 'image/png',
        filename: '',
        metadata: {},
      },
    },
  ])('$name', ({ file, expected }) => {
    expect(filePart(file)).toEqual(expected);
  });
});
