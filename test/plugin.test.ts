import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { graph as echo } from '@langgraph-a2a/examples/echo';
import { LangGraphA2AError, createServer, langGraphA2A, silentLogger } from 'langgraph-a2a';
import { rawPost, sdkClient, sendRequest, startServer, textOf, userMessage, type TestServer } from './support.js';

let app: FastifyInstance | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await app?.close();
  await server?.close();
  app = undefined;
  server = undefined;
});

describe('the Fastify plugin', () => {
  it.each([
    ['no graph', { graph: undefined }, /graph must be a compiled LangGraph graph/],
    ['an uncompiled value', { graph: { invoke: () => 1 } }, /graph must be a compiled LangGraph graph/],
    ['a prefix with a trailing slash', { graph: echo, prefix: '/a2a/' }, /prefix/],
    ['a public URL that is not a URL', { graph: echo, publicUrl: 'localhost' }, /publicUrl/],
    ['an unknown card field', { graph: echo, card: { nmae: 'typo' } }, /nmae/],
  ])('rejects %s with a coded error', async (_name, options, message) => {
    const error = await createServer({ logger: silentLogger(), ...options } as unknown as Parameters<
      typeof createServer
    >[0]).catch((e: unknown) => e);
    expect(LangGraphA2AError.isInstance(error)).toBe(true);
    expect((error as LangGraphA2AError).code).toBe('INVALID_OPTIONS');
    expect((error as Error).message).toMatch(message);
  });

  it('mounts in an existing app without changing how the app parses its own requests', async () => {
    app = Fastify();
    app.post('/mine', async (request) => ({ got: request.body }));
    await app.register(langGraphA2A, { graph: echo, prefix: '/agents/echo', publicUrl: 'https://agents.example.com' });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });

    const mine = await rawPost(`${url}/mine`, JSON.stringify({ a: 1 }));
    expect(mine.json).toEqual({ got: { a: 1 } });

    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Array<{ url: string }>;
    };
    expect(card.supportedInterfaces.map((i) => i.url)).toContain('https://agents.example.com/agents/echo/jsonrpc');

    const res = await rawPost(
      `${url}/agents/echo/jsonrpc`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'mounted' }] } },
      }),
      { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    );
    expect(res.json.result.task.status.message.parts[0].text).toBe('echo: mounted');
    expect(app.a2a.card.name).toBe('echo');
  });

  it('with the v0.3 layer off, v0.3 methods are unknown and the card has no v0.3 fields', async () => {
    server = await startServer(echo, { legacyCompat: false });
    const res = await rawPost(
      `${server.url}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }),
      { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    );
    expect(res.json.error.code).toBe(-32601);
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.url).toBeUndefined();
    // v1.0 clients still work.
    const client = await sdkClient(server.url);
    const result = await client.sendMessage(sendRequest(userMessage('v1 only')));
    expect('status' in result && textOf(result.status?.message)).toBe('echo: v1 only');
  });

  it('uses the card options given', async () => {
    server = await startServer(echo, {
      card: {
        name: 'Echo Bot',
        description: 'Repeats you.',
        skills: [{ id: 'repeat', name: 'Repeat', description: 'Repeats', tags: ['echo'] }],
      },
    });
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
    expect(card).toMatchObject({ name: 'Echo Bot', description: 'Repeats you.' });
    expect(card.skills).toEqual([expect.objectContaining({ id: 'repeat', name: 'Repeat', tags: ['echo'] })]);
  });
});
