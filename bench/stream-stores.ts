/**
 * Token streaming with each store: our server (defaults) on the token graph (one token per
 * event-loop turn, 200 tokens a stream), 20 concurrent SSE streams, served with the memory
 * store, a SQLite file and PostgreSQL (when a URL is given), one after the other.
 *
 *   node --import tsx bench/stream-stores.ts [postgres://…]   # BENCH_STREAM_SECONDS (5), BENCH_ROUNDS (3)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENS_PER_STREAM } from './graphs.js';
import { cpuUs, fmt, startServer, streamLoad } from './harness.js';

const SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 20;
const dir = mkdtempSync(join(tmpdir(), 'lga2-bench-'));
const stores = ['memory', `sqlite:${join(dir, 'bench.sqlite')}`, ...process.argv.slice(2)];

async function measure(store: string): Promise<{ tps: number; cpuPerToken: number; incomplete: number }> {
  const server = await startServer('ours', 'tokens', { store });
  await streamLoad(server.url, CONCURRENCY, 2); // warm-up
  const before = await server.usage();
  const run = await streamLoad(server.url, CONCURRENCY, SECONDS);
  const after = await server.usage();
  await server.stop();
  const tokens = run.whole * TOKENS_PER_STREAM;
  return {
    tps: tokens / run.wall,
    cpuPerToken: (cpuUs(after.cpu) - cpuUs(before.cpu)) / tokens,
    incomplete: run.outcomes.length - run.whole,
  };
}

const results: Record<string, Array<Awaited<ReturnType<typeof measure>>>> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const store of stores) (results[store] ??= []).push(await measure(store));
  process.stdout.write(`  round ${r + 1}/${ROUNDS} done\n`);
}
rmSync(dir, { recursive: true, force: true });
console.log(`node ${process.version}, ${new Date().toISOString()}, ${ROUNDS} rounds × ${SECONDS} s`);
console.table(
  Object.fromEntries(
    Object.entries(results).map(([store, rs]) => [
      store.split(':')[0],
      {
        'tokens/s': fmt(rs.map((x) => x.tps)),
        'CPU µs/token': fmt(
          rs.map((x) => x.cpuPerToken),
          1,
        ),
        incomplete: rs.reduce((a, x) => a + x.incomplete, 0),
      },
    ]),
  ),
);
