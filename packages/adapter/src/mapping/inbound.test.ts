import { describe, expect, it } from 'vitest';
import { HumanMessage, type MessageContent } from '@langchain/core/messages';
import { Message, Role, Task, TaskState, type Part } from '@a2a-js/sdk';
import { toConfigurable, toGraphInput, toHumanMessage, type FilePartMapping, type InboundRequest } from './inbound.js';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  mediaType: 'text/plain',
  filename: '',
  metadata: {},
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  mediaType: 'application/json',
  filename: '',
  metadata: {},
});
const url = (value: string, mediaType: string, filename = ''): Part => ({
  content: { $case: 'url', value },
  mediaType,
  filename,
  metadata: {},
});
const raw = (value: Buffer, mediaType: string, filename = ''): Part => ({
  content: { $case: 'raw', value },
  mediaType,
  filename,
  metadata: {},
});

function message(parts: Part[], messageId = 'msg-1'): Message {
  return {
    messageId,
    contextId: 'ctx-1',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

const task: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: undefined, timestamp: '2025-01-01T00:00:00.000Z' },
  artifacts: [],
  history: [],
  metadata: { owner: 'me' },
};

const PNG = Buffer.from('png bytes');

describe('toGraphInput', () => {
  const msg = message([text('first line'), data({ ignored: true }), text('second line')]);

  it.each<{ name: string; channels: string[]; keys: string[] }>([
    { name: 'a messages graph', channels: ['messages'], keys: ['messages'] },
    { name: 'an inbox graph', channels: ['a2a_inbox'], keys: ['a2a_inbox'] },
    { name: 'an outbox graph', channels: ['a2a_outbox'], keys: ['a2a_outbox'] },
    {
      name: 'a graph with all three',
      channels: ['messages', 'a2a_inbox', 'a2a_outbox', 'other'],
      keys: ['messages', 'a2a_inbox', 'a2a_outbox'],
    },
    { name: 'a graph with none', channels: ['question', 'answer'], keys: [] },
  ])('fills only the known channels of $name', ({ channels, keys }) => {
    const input = toGraphInput(
      { message: msg, task: undefined, metadata: undefined },
      { channels: new Set(channels), filePartMapping: 'inbox-only' },
    );
    expect(Object.keys(input).sort()).toEqual([...keys].sort());
  });

  it('messages: one HumanMessage whose id is the messageId and whose text is the text parts joined by newlines', () => {
    const input = toGraphInput(
      { message: msg, task: undefined, metadata: undefined },
      { channels: new Set(['messages']), filePartMapping: 'inbox-only' },
    );
    const messages = input.messages as unknown[];
    expect(messages).toHaveLength(1);
    const human = messages[0];
    expect(human).toBeInstanceOf(HumanMessage);
    expect((human as HumanMessage).id).toBe('msg-1');
    expect((human as HumanMessage).content).toBe('first line\nsecond line');
  });

  it.each<{ name: string; req: InboundRequest; expected: { task: unknown; metadata: Record<string, unknown> } }>([
    {
      name: 'a new message',
      req: { message: msg, task: undefined, metadata: undefined },
      expected: { task: null, metadata: {} },
    },
    {
      name: 'a message continuing a task, with request metadata',
      req: { message: msg, task, metadata: { tenant: 'acme' } },
      expected: { task: Task.toJSON(task), metadata: { tenant: 'acme' } },
    },
  ])('a2a_inbox: the envelope of $name, as v1.0 JSON', ({ req, expected }) => {
    const input = toGraphInput(req, { channels: new Set(['a2a_inbox']), filePartMapping: 'inbox-only' });
    const envelope = input.a2a_inbox as { task: unknown; message: Record<string, unknown>; metadata: unknown };
    expect(envelope).toEqual({ task: expected.task, message: Message.toJSON(msg), metadata: expected.metadata });
    // JSON, not the SDK's objects: the graph state stays serializable.
    expect(envelope.message).toMatchObject({
      messageId: 'msg-1',
      parts: [{ text: 'first line' }, { data: { ignored: true } }, { text: 'second line' }],
    });
    expect(JSON.parse(JSON.stringify(envelope))).toEqual(envelope);
    if (req.task) expect(envelope.task).toMatchObject({ id: 'task-1', metadata: { owner: 'me' } });
  });

  it("a2a_outbox: reset to null, so an earlier turn's answer is not read again", () => {
    const input = toGraphInput(
      { message: msg, task: undefined, metadata: undefined },
      { channels: new Set(['a2a_outbox']), filePartMapping: 'inbox-only' },
    );
    expect(input).toHaveProperty('a2a_outbox', null);
  });
});

describe('toHumanMessage', () => {
  it.each<{ name: string; parts: Part[]; mapping: FilePartMapping; content: MessageContent }>([
    {
      name: 'text parts only',
      parts: [text('a'), text('b')],
      mapping: 'content-blocks',
      content: 'a\nb',
    },
    {
      name: 'files are left to the inbox with inbox-only',
      parts: [text('look'), url('https://example.com/cat.png', 'image/png')],
      mapping: 'inbox-only',
      content: 'look',
    },
    {
      name: 'an image url becomes an image_url block',
      parts: [text('look'), url('https://example.com/cat.png', 'image/png')],
      mapping: 'content-blocks',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      ],
    },
    {
      name: 'image bytes become a data: url',
      parts: [raw(PNG, 'image/png')],
      mapping: 'content-blocks',
      content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } }],
    },
    {
      name: 'another file becomes a file block with its media type and name',
      parts: [text('read this'), url('https://example.com/a.pdf', 'application/pdf', 'a.pdf')],
      mapping: 'content-blocks',
      content: [
        { type: 'text', text: 'read this' },
        { type: 'file', url: 'https://example.com/a.pdf', mimeType: 'application/pdf', filename: 'a.pdf' },
      ],
    },
    {
      name: 'a data part is neither text nor a file',
      parts: [data({ a: 1 })],
      mapping: 'content-blocks',
      content: '',
    },
  ])('$name ($mapping)', ({ parts, mapping, content }) => {
    const human = toHumanMessage(message(parts, 'msg-9'), mapping);
    expect(human).toBeInstanceOf(HumanMessage);
    expect(human.id).toBe('msg-9');
    expect(human.content).toEqual(content);
  });
});

describe('toConfigurable', () => {
  it('threads the run on the A2A context and carries the envelope', () => {
    const envelope = { task: null, message: { messageId: 'm' }, metadata: {} };
    expect(toConfigurable('ctx-7', envelope)).toEqual({ thread_id: 'ctx-7', a2a: envelope });
  });
});
