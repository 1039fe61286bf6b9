import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graph as echo } from '@langgraph-a2a/examples/echo';
import { rawPost, startServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(echo);
});
afterAll(async () => {
  await server.close();
});

const rpc = () => `${server.url}/a2a/jsonrpc`;
const rest = (path: string) => `${server.url}/a2a/rest${path}`;
const v1 = { 'content-type': 'application/json', 'A2A-Version': '1.0' };

/** After every bad request the server must still answer a good one. */
async function stillServes() {
  const res = await rawPost(
    rpc(),
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'ok',
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'still there?' }] } },
    }),
    v1,
  );
  expect(res.json.result.task.status.state).toBe('TASK_STATE_COMPLETED');
}

describe('JSON-RPC bad input gets the spec error code', () => {
  it.each([
    ['invalid JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700],
    ['a JSON array (batch)', '[]', 400, -32600],
    [
      'a wrong jsonrpc version',
      JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      200,
      -32600,
    ],
    ['a missing method', JSON.stringify({ jsonrpc: '2.0', id: 1, params: {} }), 200, -32600],
    ['an unknown method', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'DoSomething', params: {} }), 200, -32601],
    [
      'params that are not an object',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [1] }),
      200,
      -32602,
    ],
    [
      'SendMessage without a message',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
      200,
      -32602,
    ],
    [
      'an unknown task id',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }),
      200,
      -32001,
    ],
    [
      'canceling an unknown task',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: 'no-such-task' } }),
      200,
      -32001,
    ],
  ])('%s', async (_name, body, status, code) => {
    const res = await rawPost(rpc(), body, v1);
    expect(res.status).toBe(status);
    expect(res.contentType).toContain('application/json');
    expect(res.json.jsonrpc).toBe('2.0');
    expect(res.json.error.code).toBe(code);
    await stillServes();
  });

  it('a wrong content type gets 415 and ContentTypeNotSupported (-32005)', async () => {
    const res = await rawPost(rpc(), 'hello', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe(-32005);
    await stillServes();
  });

  it('an unsupported A2A-Version gets VersionNotSupported (-32009)', async () => {
    const res = await rawPost(
      rpc(),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      {
        'content-type': 'application/json',
        'A2A-Version': '9.9',
      },
    );
    expect(res.json.error.code).toBe(-32009);
  });

  it('streaming an unknown task answers with a JSON-RPC error, not an empty stream', async () => {
    const res = await rawPost(
      rpc(),
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SubscribeToTask', params: { id: 'nope' } }),
      v1,
    );
    expect(res.contentType).toContain('application/json');
    expect(res.json).toMatchObject({ id: 7, error: { code: -32001 } });
  });
});

describe('REST bad input', () => {
  it('an unsupported content type gets 415', async () => {
    const res = await rawPost(rest('/message:send'), '<xml/>', {
      'content-type': 'application/xml',
      'A2A-Version': '1.0',
    });
    expect(res.status).toBe(415);
    expect(res.contentType).toContain('application/json');
    expect(res.json.error.message).toMatch(/Content-Type/);
    await stillServes();
  });

  it('invalid JSON gets 400', async () => {
    const res = await rawPost(rest('/message:send'), '{oops', v1);
    expect(res.status).toBe(400);
    expect(res.contentType).toContain('application/json');
  });

  it('a message without messageId gets 400', async () => {
    const res = await rawPost(
      rest('/message:send'),
      JSON.stringify({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      v1,
    );
    expect(res.status).toBe(400);
  });

  it('an unknown task gets 404 with application/json', async () => {
    const res = await fetch(rest('/tasks/no-such-task'), { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  it('a negative historyLength gets 400', async () => {
    const res = await fetch(rest('/tasks/x?historyLength=-1'), { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(400);
  });

  it('successful responses are application/json', async () => {
    const res = await rawPost(
      rest('/message:send'),
      JSON.stringify({ message: { messageId: 'rest-ct', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      v1,
    );
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.json.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('serves the agent card and /healthz', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
    expect(card.name).toBe('echo');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.supportedInterfaces).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
          url: `${server.url}/a2a/jsonrpc`,
        }),
        expect.objectContaining({
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0',
          url: `${server.url}/a2a/rest`,
        }),
        expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      ]),
    );
    // v0.3 fields for v0.3 clients.
    expect(card.url).toBe(`${server.url}/a2a/jsonrpc`);
    expect(card.protocolVersion).toBe('0.3.0');
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', runningTasks: 0 });
  });
});
