import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import {
  Role,
  TaskState,
  type ListTasksRequest,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { createServer, silentLogger, type CreateServerOptions, type StreamableGraph } from 'langgraph-a2a';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  close: () => Promise<void>;
}

/** A real server on a free loopback port. */
export async function startServer(
  graph: StreamableGraph,
  options: Partial<CreateServerOptions> = {},
): Promise<TestServer> {
  const app = await createServer({ graph, logger: silentLogger(), ...options });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, app, close: () => app.close() };
}

/** The official SDK client, from the served agent card, on the chosen transport. */
export async function sdkClient(url: string, transport: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  return factory.createFromUrl(url);
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  mediaType: 'text/plain',
  filename: '',
  metadata: {},
});
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  mediaType: 'application/json',
  filename: '',
  metadata: {},
});

export function userMessage(
  parts: Part[] | string,
  ids: { taskId?: string; contextId?: string; messageId?: string } = {},
): Message {
  return {
    messageId: ids.messageId ?? randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

export function sendRequest(
  message: Message,
  configuration: Partial<NonNullable<SendMessageRequest['configuration']>> = {},
): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...configuration,
    },
    metadata: {},
  };
}

export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

export function textOf(message: Pick<Message, 'parts'> | undefined): string {
  return (message?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('');
}

export function isTask(value: Message | Task): value is Task {
  return 'status' in value && 'id' in value;
}

/** Every frame's payload case, for readable assertions on stream order. */
export function cases(frames: StreamResponse[]): string[] {
  return frames.map((f) => f.payload?.$case ?? 'empty');
}

/** POSTs raw JSON (or any body) and returns status, content type and parsed body. */
export async function rawPost(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const res = await fetch(url, { method: 'POST', body, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    text,
    json: json as Record<string, any>,
  };
}

/** A ListTasks request: everything, unless `overrides` narrow it. */
export function listRequest(overrides: Partial<ListTasksRequest> = {}): ListTasksRequest {
  return {
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    includeArtifacts: false,
    statusTimestampAfter: undefined,
    ...overrides,
  };
}

const BIN = fileURLToPath(new URL('../packages/adapter/bin/langgraph-a2a.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts `langgraph-a2a serve <args>` as a child process on a free port and resolves with
 * the URL it prints. The caller kills the process.
 */
export async function spawnServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0', '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /serving ".*" at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`CLI exited with ${code}: ${out}`)));
  });
  return { url, proc, output: () => out };
}
