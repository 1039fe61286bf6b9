/**
 * Token streaming with each store: our server (defaults) on the token graph (one token per
 * event-loop turn, 200 tokens a stream), 20 concurrent SSE streams, served with the memory
 * store, a SQLite file and PostgreSQL (when a URL is given), one after the other.
 *
 *   node --import tsx bench/stream-stores.ts [postgres://…]   # BENCH_STREAM_SECONDS (5), BENCH_ROUNDS (3)
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchTokens } from './graphs.js';
import { streamOnce } from './sse-client.js';

const SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 20;
const EXPECTED = benchTokens(200).join('');
const dir = mkdtempSync(join(tmpdir(), 'lga2-bench-'));
const stores = ['memory', `sqlite:${join(dir, 'bench.sqlite')}`, ...process.argv.slice(2)];

async function measure(store: string): Promise<{ tps: number; cpuPerToken: number; incomplete: number }> {
  const child = fork(new URL('./servers.ts', import.meta.url).pathname, ['ours', 'tokens', store], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = () =>
    new Promise<{ cpu: NodeJS.CpuUsage }>((resolve) => {
      child.once('message', (m) => resolve(m as never));
      child.send({ cmd: 'usage' });
    });
  const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as never)));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const load = async (seconds: number) => {
    const t0 = performance.now();
    let tokens = 0;
    let incomplete = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() - t0 < seconds * 1000) {
          const o = await streamOnce(url, agent);
          if (o.text === EXPECTED && o.finalState === 'TASK_STATE_COMPLETED') tokens += 200;
          else incomplete++;
        }
      }),
    );
    return { tokens, incomplete, wall: (performance.now() - t0) / 1000 };
  };
  await load(2); // warm-up
  const before = (await ask()).cpu;
  const run = await load(SECONDS);
  const after = (await ask()).cpu;
  agent.destroy();
  child.kill();
  const cpu = after.user + after.system - before.user - before.system;
  return { tps: run.tokens / run.wall, cpuPerToken: cpu / run.tokens, incomplete: run.incomplete };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
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
        'tokens/s': Math.round(median(rs.map((x) => x.tps))).toLocaleString('en-US'),
        'CPU µs/token': median(rs.map((x) => x.cpuPerToken)).toFixed(1),
        incomplete: rs.reduce((a, x) => a + x.incomplete, 0),
      },
    ]),
  ),
);
process.exit(0);
