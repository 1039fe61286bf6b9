import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { graph as artifacts } from '@langgraph-a2a/examples/artifacts';
import { STREAM_DELTA_ARTIFACT_ID, webhookReceiver } from 'langgraph-a2a';
import { streamingGraph } from './graphs.js';
import { isTask, rawPost, sdkClient, sendRequest, startServer, userMessage, type TestServer } from './support.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const local = { webhooks: { allowHosts: ['127.0.0.1'], allowHttp: true } };

/** An orchestrator's webhook (the receiver plugin), optionally failing its first requests. */
async function orchestrator(opts: { token: string; failFirst?: number }) {
  const app: FastifyInstance = Fastify();
  const events: Array<{ task: Task; event: StreamResponse }> = [];
  let done!: (t: Task) => void;
  const completed = new Promise<Task>((resolve) => (done = resolve));
  let failures = opts.failFirst ?? 0;
  let requests = 0;
  app.addHook('onRequest', async (_req, reply) => {
    requests++;
    if (failures > 0) {
      failures--;
      return reply.code(503).send({ error: 'try later' });
    }
  });
  await app.register(webhookReceiver, {
    tokenFor: () => opts.token,
    onTask: (task, event) => {
      events.push({ task, event });
      if (task.status?.state === TaskState.TASK_STATE_COMPLETED) done(task);
    },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return { url: `${url}/a2a/webhook`, events, completed, requests: () => requests };
}

async function agent(options = {}, graph: Parameters<typeof startServer>[0] = artifacts): Promise<TestServer> {
  const server = await startServer(graph, { ...local, ...options });
  closers.push(() => server.close());
  return server;
}

const pushConfig = (url: string, token: string) => ({
  tenant: '',
  id: '',
  taskId: '',
  url,
  token,
  authentication: undefined,
});

const states = (events: Array<{ event: StreamResponse }>) =>
  events.flatMap((e) => (e.event.payload?.$case === 'statusUpdate' ? [e.event.payload.value.status?.state] : []));

describe('push notifications (seed 002: ACK, then webhooks)', () => {
  it('acknowledges at once, then the webhook receives working … completed with the artifacts', async () => {
    const hook = await orchestrator({ token: 'tok-1' });
    const server = await agent();
    const client = await sdkClient(server.url);
    const ack = await client.sendMessage(
      sendRequest(userMessage('owls'), {
        returnImmediately: true,
        taskPushNotificationConfig: pushConfig(hook.url, 'tok-1'),
      }),
    );
    if (!isTask(ack)) throw new Error('expected a task');
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(ack.status?.state);

    const final = await hook.completed;
    expect(final.id).toBe(ack.id);
    expect(final.artifacts.map((a) => a.artifactId)).toEqual(expect.arrayContaining(['summary', 'report']));
    const seen = states(hook.events);
    expect(seen[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(hook.events.some((e) => e.event.payload?.$case === 'artifactUpdate')).toBe(true);
    const configs = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: ack.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(configs.configs.map((c) => c.url)).toEqual([hook.url]);
  });

  it('token deltas go to streams, not to webhooks: the webhook gets the states and the whole answer', async () => {
    const answer = 'An answer streamed token by token to the client, pushed once to the webhook.';
    const hook = await orchestrator({ token: 'tok-2' });
    const server = await agent({}, streamingGraph(answer));
    const client = await sdkClient(server.url);
    const frames: StreamResponse[] = [];
    const stream = client.sendMessageStream(
      sendRequest(userMessage('stream it'), { taskPushNotificationConfig: pushConfig(hook.url, 'tok-2') }),
    );
    for await (const frame of stream) frames.push(frame);
    const final = await hook.completed;
    await server.app.a2a.pushDelivery?.whenIdle();
    const isDelta = (e: StreamResponse) =>
      e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID;
    expect(frames.filter(isDelta).length).toBeGreaterThan(0);
    expect(hook.events.filter((e) => isDelta(e.event))).toEqual([]);
    expect(states(hook.events)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    expect(final.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: answer });
  });

  it('a webhook that fails twice still receives every event, in order', async () => {
    const reference = await orchestrator({ token: 't' });
    const flaky = await orchestrator({ token: 't', failFirst: 2 });
    const server = await agent();
    const client = await sdkClient(server.url);
    await client.sendMessage(
      sendRequest(userMessage('bats'), { taskPushNotificationConfig: pushConfig(reference.url, 't') }),
    );
    await client.sendMessage(
      sendRequest(userMessage('bats'), { taskPushNotificationConfig: pushConfig(flaky.url, 't') }),
    );
    await Promise.all([reference.completed, flaky.completed]);
    await server.app.a2a.pushDelivery?.whenIdle();
    expect(flaky.requests()).toBe(reference.requests() + 2);
    const shape = (events: Array<{ event: StreamResponse }>) =>
      events.map(
        (e) =>
          `${e.event.payload?.$case}:${e.event.payload?.$case === 'statusUpdate' ? e.event.payload.value.status?.state : ''}`,
      );
    expect(shape(flaky.events)).toEqual(shape(reference.events));
  });

  it('the receiver answers 401 to a wrong token and 400 to a bad payload', async () => {
    const hook = await orchestrator({ token: 'right' });
    const event = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
    const wrong = await rawPost(hook.url, JSON.stringify(event), {
      'content-type': 'application/json',
      authorization: 'Bearer wrong',
    });
    expect(wrong.status).toBe(401);
    const missing = await rawPost(hook.url, JSON.stringify(event), { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    const bad = await rawPost(hook.url, JSON.stringify({ nothing: true }), {
      'content-type': 'application/json',
      authorization: 'Bearer right',
    });
    expect(bad.status).toBe(400);
    const ok = await rawPost(hook.url, JSON.stringify(event), {
      'content-type': 'application/json',
      authorization: 'Bearer right',
    });
    expect(ok.status).toBe(204);
    // The same event again changes nothing and is not handed on twice.
    await rawPost(hook.url, JSON.stringify(event), {
      'content-type': 'application/json',
      authorization: 'Bearer right',
    });
    expect(hook.events).toHaveLength(1);
  });

  it.each([
    ['a private address', 'https://10.1.2.3/hook', /private or local address/],
    ['loopback', 'https://127.0.0.1/hook', /private or local address/],
    ['link-local', 'https://169.254.169.254/latest', /private or local address/],
    ['plain http', 'http://example.com/hook', /must use https/],
  ])('refuses a webhook URL on %s with a clear error, sending nothing', async (_name, url, reason) => {
    const server = await startServer(artifacts);
    closers.push(() => server.close());
    const client = await sdkClient(server.url);
    await expect(
      client.sendMessage(sendRequest(userMessage('x'), { taskPushNotificationConfig: pushConfig(url, 't') })),
    ).rejects.toThrow(reason);
    const res = await rawPost(
      `${server.url}/a2a/jsonrpc`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTaskPushNotificationConfig',
        params: { taskId: 'x', url, token: 't' },
      }),
      { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    );
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.error.message).toMatch(reason);
  });

  it('a v0.3 client that puts pushNotificationConfig in message/send gets v0.3 webhooks with its token', async () => {
    const app: FastifyInstance = Fastify();
    const bodies: Array<Record<string, any>> = [];
    const auths: string[] = [];
    let done!: () => void;
    const completed = new Promise<void>((resolve) => (done = resolve));
    app.post('/hook', async (request, reply) => {
      bodies.push(request.body as Record<string, any>);
      auths.push(String(request.headers.authorization));
      if ((request.body as { status?: { state?: string } }).status?.state === 'completed') done();
      return reply.code(200).send();
    });
    const hookUrl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/hook`;
    closers.push(() => app.close());
    const server = await agent();
    const res = await rawPost(
      `${server.url}/a2a/jsonrpc`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'moths' }],
          },
          configuration: { blocking: false, pushNotificationConfig: { url: hookUrl, token: 'legacy-token' } },
        },
      }),
    );
    expect(res.json.result.kind).toBe('task');
    await completed;
    expect(auths.every((a) => a === 'Bearer legacy-token')).toBe(true);
    expect(bodies.at(-1)).toMatchObject({ kind: 'task', id: res.json.result.id, status: { state: 'completed' } });
  });
});

describe('pending push deliveries', () => {
  it('survive a restart of the server (SQLite store)', async () => {
    const { backends } = await import('./stores-support.js');
    const store = await backends[0]!.fresh();
    let up = false;
    const received: string[] = [];
    const app: FastifyInstance = Fastify();
    app.post('/hook', async (request, reply) => {
      if (!up) return reply.code(503).send();
      const body = request.body as { statusUpdate?: { status?: { state?: string } } };
      received.push(body.statusUpdate?.status?.state ?? Object.keys(body)[0]!);
      return reply.code(204).send();
    });
    const hookUrl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/hook`;
    closers.push(() => app.close());

    const first = await startServer(artifacts, { ...local, store, instanceId: 'push-a' });
    const client = await sdkClient(first.url);
    const task = await client.sendMessage(
      sendRequest(userMessage('ants'), { taskPushNotificationConfig: pushConfig(hookUrl, 't') }),
    );
    expect(isTask(task) && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(received).toEqual([]);
    const pending = await first.app.a2a.persistence.pushOutbox.pending('push-a');
    expect(pending.length).toBeGreaterThan(3);
    await first.close();

    up = true;
    const second = await startServer(artifacts, { ...local, store, instanceId: 'push-a' });
    closers.push(() => second.close());
    await second.app.a2a.pushDelivery?.whenIdle();
    expect(received.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(received.length).toBeGreaterThanOrEqual(pending.length);
    expect(await second.app.a2a.persistence.pushOutbox.pending('push-a')).toEqual([]);
  });
});
