import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graph as approval } from '@langgraph-a2a/examples/approval';
import { graph as echo } from '@langgraph-a2a/examples/echo';
import { streamingGraph } from './graphs.js';
import { rawPost, startServer, type TestServer } from './support.js';

/** Parses an SSE body into its `data:` JSON frames. */
function sseFrames(body: string): Array<Record<string, any>> {
  return body
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join(''),
    )
    .filter((d) => d.length > 0)
    .map((d) => JSON.parse(d) as Record<string, any>);
}

const v03Message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

describe('the seed 004 client (v0.3): input-required, then the answer as a data part over message/stream', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(approval);
  });
  afterAll(async () => {
    await server.close();
  });

  const stream = async (params: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: crypto.randomUUID(), method: 'message/stream', params }),
    });
    return sseFrames(await res.text()).map((f) => f.result);
  };

  it('pauses with the prompt and schema, rejects a bad answer, resumes on the same contextId', async () => {
    const first = await stream({ message: v03Message('sign the delegations') });
    const task = first[0];
    expect(task.kind).toBe('task');
    expect(first.find((f) => f.kind === 'artifact-update')?.artifact.artifactId).toBe('plan');
    const paused = first.at(-1);
    expect(paused).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const question = paused.status.message.parts.find((p: { kind: string }) => p.kind === 'data').data;
    expect(question.inputSchema.properties.approved).toEqual({ type: 'boolean' });

    const answer = (data: unknown) =>
      stream({
        message: {
          kind: 'message',
          role: 'user',
          parts: [{ kind: 'data', data }],
          contextId: task.contextId,
          messageId: crypto.randomUUID(),
          metadata: { userInteraction: 'true', interactionType: 'component-response' },
        },
        configuration: { acceptedOutputModes: ['text/plain'] },
      });
    const rejected = await answer({ approved: 'maybe' });
    expect(rejected.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'input-required' } });
    expect(rejected.at(-1).status.message.parts[0].text).toMatch(/must be boolean/);

    const resumed = await answer({ approved: false, comment: 'not today' });
    expect(resumed[0]).toMatchObject({ kind: 'task', id: task.id });
    expect(resumed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(resumed.at(-1).status.message.parts[0].text).toBe('Not done: the plan was rejected. (not today)');
  });
});

describe('v0.3 clients (no A2A-Version header, kind-tagged objects)', () => {
  let echoServer: TestServer;
  let chatServer: TestServer;
  beforeAll(async () => {
    echoServer = await startServer(echo);
    chatServer = await startServer(streamingGraph('old clients stream too'));
  });
  afterAll(async () => {
    await echoServer.close();
    await chatServer.close();
  });

  it('message/send returns a v0.3 task', async () => {
    const res = await rawPost(
      `${echoServer.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: v03Message('old') } }),
    );
    expect(res.status).toBe(200);
    const task = res.json.result;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.status.message.parts).toEqual([expect.objectContaining({ kind: 'text', text: 'echo: old' })]);

    const got = await rawPost(
      `${echoServer.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: task.id } }),
    );
    expect(got.json.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
  });

  it('message/stream sends kind-tagged SSE frames ending in a final completed status', async () => {
    const res = await fetch(`${chatServer.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'stream-1',
        method: 'message/stream',
        params: { message: v03Message('hi') },
      }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = sseFrames(await res.text()).map((f) => f.result);
    expect(frames[0].kind).toBe('task');
    const deltas = frames.filter((f) => f.kind === 'artifact-update');
    expect(deltas.map((d) => d.artifact.parts.map((p: { text: string }) => p.text).join('')).join('')).toBe(
      'old clients stream too',
    );
    expect(deltas.filter((d) => d.lastChunk === true)).toHaveLength(1);
    const last = frames.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('an unknown v0.3 task gets the v0.3 TaskNotFound error (-32001)', async () => {
    const res = await rawPost(
      `${echoServer.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'missing' } }),
    );
    expect(res.json.error.code).toBe(-32001);
  });

  it('tasks/cancel on a completed task gets TaskNotCancelable (-32002)', async () => {
    const sent = await rawPost(
      `${echoServer.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'message/send', params: { message: v03Message('x') } }),
    );
    const res = await rawPost(
      `${echoServer.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tasks/cancel', params: { id: sent.json.result.id } }),
    );
    expect(res.json.error.code).toBe(-32002);
  });
});
