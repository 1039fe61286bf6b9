import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, HumanMessage, HumanMessageChunk, ToolMessage } from '@langchain/core/messages';
import { mapMessagesChunk, type TokenDelta } from './messages-mode.js';

describe('mapMessagesChunk', () => {
  it.each<{ name: string; chunk: unknown; expected: TokenDelta }>([
    {
      name: 'an LLM chunk with text, its id and the node from the metadata',
      chunk: [new AIMessageChunk({ content: 'Hel', id: 'msg-1' }), { langgraph_node: 'agent' }],
      expected: { text: 'Hel', messageId: 'msg-1', node: 'agent' },
    },
    {
      name: 'a chunk without metadata: no node',
      chunk: [new AIMessageChunk({ content: 'lo', id: 'msg-1' })],
      expected: { text: 'lo', messageId: 'msg-1', node: undefined },
    },
    {
      name: 'a chunk without an id',
      chunk: [new AIMessageChunk({ content: 'x' }), { langgraph_node: 'n' }],
      expected: { text: 'x', messageId: undefined, node: 'n' },
    },
    {
      name: 'a non-string langgraph_node is not a node name',
      chunk: [new AIMessageChunk({ content: 'x', id: 'm' }), { langgraph_node: 42 }],
      expected: { text: 'x', messageId: 'm', node: undefined },
    },
    {
      name: 'content blocks: the text blocks, concatenated',
      chunk: [
        new AIMessageChunk({
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
          id: 'm',
        }),
        { langgraph_node: 'agent' },
      ],
      expected: { text: 'ab', messageId: 'm', node: 'agent' },
    },
  ])('$name', ({ chunk, expected }) => {
    expect(mapMessagesChunk(chunk)).toEqual(expected);
  });

  it.each<{ name: string; chunk: unknown }>([
    {
      name: 'a whole AIMessage a node returned',
      chunk: [new AIMessage({ content: 'final', id: 'm' }), { langgraph_node: 'agent' }],
    },
    {
      name: 'an AIMessageChunk with empty text',
      chunk: [new AIMessageChunk({ content: '', id: 'm' }), { langgraph_node: 'agent' }],
    },
    {
      name: 'a tool-call chunk',
      chunk: [
        new AIMessageChunk({
          content: '',
          id: 'm',
          tool_call_chunks: [{ type: 'tool_call_chunk', name: 'search', args: '{"q":', id: 'call-1', index: 0 }],
        }),
        { langgraph_node: 'agent' },
      ],
    },
    { name: 'a HumanMessage', chunk: [new HumanMessage({ content: 'hi', id: 'h' }), { langgraph_node: 'agent' }] },
    { name: 'a HumanMessageChunk', chunk: [new HumanMessageChunk({ content: 'hi', id: 'h' }), {}] },
    { name: 'a ToolMessage', chunk: [new ToolMessage({ content: 'result', tool_call_id: 'call-1' }), {}] },
    { name: 'undefined', chunk: undefined },
    { name: 'null', chunk: null },
    { name: 'a string', chunk: 'Hel' },
    { name: 'an object, not a tuple', chunk: { message: new AIMessageChunk('Hel'), metadata: {} } },
    { name: 'an empty array', chunk: [] },
    { name: 'a tuple with no message', chunk: [undefined, { langgraph_node: 'agent' }] },
    { name: 'a plain object shaped like a chunk', chunk: [{ content: 'Hel', id: 'm' }, {}] },
  ])('ignores $name', ({ chunk }) => {
    expect(mapMessagesChunk(chunk)).toBeUndefined();
  });
});
