/**
 * Scenario 4, in its own process (needs `--expose-gc`): memory per stored completed task.
 * Serves the echo graph with `store` and sends N messages through the request handler
 * (no HTTP: only what stays behind is measured), 20 at a time. Then, in a fresh store,
 * saves N copies of one completed task directly, to separate the task from the rest.
 *
 *   node --expose-gc --import tsx bench/memory.ts <memory|sqlite> [N]
 *
 * Answers one IPC message with the figures (or prints them when run by hand).
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { createServer, openPersistence, parseStoreSetting, silentLogger } from 'langgraph-a2a';
import { benchGraph, sendMessageRequest } from './graphs.js';

const kind = process.argv[2] as 'memory' | 'sqlite';
const N = Number(process.argv[3] ?? 10_000);
const C = 20;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
function settle(): { heap: number; rss: number } {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss };
}
const fileBytes = (file: string) =>
  [file, `${file}-wal`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0);
const newFile = () => join(mkdtempSync(join(tmpdir(), 'lga2a-bench-mem-')), 'store.sqlite');

const request = (i: number) => sendMessageRequest(`message ${i}`);

async function endToEnd() {
  const file = kind === 'sqlite' ? newFile() : undefined;
  const app = await createServer({
    graph: benchGraph('echo'),
    store: file ? `sqlite:${file}` : 'memory',
    logger: silentLogger(),
  });
  await app.ready();
  const handler = app.a2a.requestHandler;
  const ctx = () => new ServerCallContext();
  await handler.sendMessage(request(-1), ctx());
  const before = settle();
  const bytes0 = file ? fileBytes(file) : 0;
  let next = 0;
  let last: Task | undefined;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) last = (await handler.sendMessage(request(next++), ctx())) as Task;
    }),
  );
  const after = settle();
  const out = {
    heapPerTask: (after.heap - before.heap) / N,
    rssPerTask: (after.rss - before.rss) / N,
    filePerTask: file ? (fileBytes(file) - bytes0) / N : undefined,
  };
  await app.close();
  return { ...out, sample: last! };
}

/** N copies of one completed task saved straight into the task store: the task alone. */
async function taskOnly(sample: Task) {
  const file = kind === 'sqlite' ? newFile() : undefined;
  const persistence = await openPersistence(parseStoreSetting(file ? `sqlite:${file}` : 'memory'));
  const ctx = new ServerCallContext();
  const before = settle();
  const bytes0 = file ? fileBytes(file) : 0;
  for (let i = 0; i < N; i++) await persistence.taskStore.save({ ...sample, id: randomUUID() }, ctx);
  const after = settle();
  const out = {
    heapPerTask: (after.heap - before.heap) / N,
    filePerTask: file ? (fileBytes(file) - bytes0) / N : undefined,
    jsonBytes: JSON.stringify(sample).length,
  };
  await persistence.close();
  return out;
}

const e2e = await endToEnd();
const only = await taskOnly(e2e.sample);
const result = {
  store: kind,
  tasks: N,
  heapPerTask: e2e.heapPerTask,
  rssPerTask: e2e.rssPerTask,
  filePerTask: e2e.filePerTask,
  taskOnlyHeapPerTask: only.heapPerTask,
  taskOnlyFilePerTask: only.filePerTask,
  taskJsonBytes: only.jsonBytes,
};
if (process.send) process.send(result);
else console.log(result);
