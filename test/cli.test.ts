import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { STREAM_DELTA_ARTIFACT_ID } from 'langgraph-a2a';
import { collect, sdkClient, sendRequest, spawnServe, textOf, userMessage } from './support.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../packages/adapter/bin/langgraph-a2a.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/** Starts the CLI and resolves with the URL it prints. */
async function serve(...args: string[]) {
  const started = await spawnServe(args);
  child = started.proc;
  return started;
}

describe('langgraph-a2a serve', () => {
  it('serves the chat example to the SDK client and stops cleanly on SIGTERM', async () => {
    const { url, proc } = await serve('examples/graphs/src/chat.ts#graph', '--card', '{"name":"CLI chat"}');
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { name: string };
    expect(card.name).toBe('CLI chat');
    const client = await sdkClient(url);
    const frames = await collect(client.sendMessageStream(sendRequest(userMessage('hello'))));
    const deltas = frames.flatMap((f) =>
      f.payload?.$case === 'artifactUpdate' && f.payload.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID
        ? [textOf(f.payload.value.artifact)]
        : [],
    );
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.join('')).toMatch(/^Hello! I am a LangGraph agent/);
    proc.kill('SIGTERM');
    const [code] = await once(proc, 'exit');
    expect(code).toBe(0);
  });

  it('lets an in-flight stream finish before exiting on SIGTERM', async () => {
    const { url, proc } = await serve('test/fixtures/slow-graph.ts');
    const client = await sdkClient(url);
    const stream = client.sendMessageStream(sendRequest(userMessage('go')));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    proc.kill('SIGTERM');
    const rest = await collect(stream);
    const last = rest.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case !== 'statusUpdate') return;
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(last.value.status?.message)).toBe('all steps done');
    const [code] = await once(proc, 'exit');
    expect(code).toBe(0);
  });

  it('explains a module that exports no graph', async () => {
    const proc = spawn(process.execPath, [bin, 'serve', 'test/support.ts#nothing', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const [code] = await once(proc, 'exit');
    expect(code).toBe(1);
    expect(err).toContain('has no export nothing');
  });
});
