/**
 * Task write throughput and per-task storage size for the memory, SQLite and
 * PostgreSQL stores, in one run. Each backend serves the `echo` graph on loopback and
 * the official SDK client sends N messages (each one task: create, working, completed,
 * plus its checkpoints), one at a time and then C at a time.
 *
 *   node --expose-gc --import tsx bench/stores.ts [N] [C]
 *
 * PostgreSQL is measured when LANGGRAPH_A2A_BENCH_PG (or LANGGRAPH_A2A_TEST_PG) names a
 * server (scripts/test-postgres.sh starts a throwaway one).
 */
import { mkdtempSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { AIMessage } from '@langchain/core/messages';
import { createServer, silentLogger } from 'langgraph-a2a';
import { ClientFactory } from '@a2a-js/sdk/client';
import { sendMessageRequest } from './graphs.js';

const N = Number(process.argv[2] ?? 500);
const C = Number(process.argv[3] ?? 20);
const PG_URL = process.env.LANGGRAPH_A2A_BENCH_PG ?? process.env.LANGGRAPH_A2A_TEST_PG;

const echo = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('echo', (s) => ({ messages: [new AIMessage(`echo: ${s.messages.at(-1)?.text ?? ''}`)] }))
    .addEdge('__start__', 'echo')
    .compile();

const message = (i: number) => sendMessageRequest(`message number ${i}`);

async function freshPgDatabase(): Promise<string> {
  const name = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function pgBytes(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  );
  await c.end();
  return Number(r.rows[0].bytes);
}

function sqliteBytes(file: string): number {
  return [file, `${file}-wal`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0);
}

function heap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function measure(name: string, store: string, size: () => Promise<number>) {
  const app = await createServer({ graph: echo(), store, logger: silentLogger() });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = await new ClientFactory().createFromUrl(url);
  await client.sendMessage(message(-1)); // warm-up
  const before = await size();

  let t0 = performance.now();
  for (let i = 0; i < N; i++) await client.sendMessage(message(i));
  const sequential = N / ((performance.now() - t0) / 1000);

  t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) await client.sendMessage(message(next++));
    }),
  );
  const concurrent = N / ((performance.now() - t0) / 1000);
  const after = await size();
  await app.close();
  return {
    store: name,
    'tasks/s (1 at a time)': sequential.toFixed(0),
    [`tasks/s (${C} at a time)`]: concurrent.toFixed(0),
    'bytes per task': ((after - before) / (2 * N)).toFixed(0),
  };
}

const rows = [];
rows.push(await measure('memory', 'memory', async () => heap()));
const file = join(mkdtempSync(join(tmpdir(), 'lga2a-bench-')), 'store.sqlite');
rows.push(await measure('sqlite', `sqlite:${file}`, async () => sqliteBytes(file)));
if (PG_URL) {
  const url = await freshPgDatabase();
  rows.push(await measure('postgres', url, () => pgBytes(url)));
} else {
  console.log('PostgreSQL skipped: set LANGGRAPH_A2A_BENCH_PG');
}
console.log(`N=${N} tasks per phase, C=${C}, node ${process.version}`);
console.table(rows);
