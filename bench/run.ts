/**
 * Every benchmark scenario, side by side in one run: each round measures every variant
 * once, in turn, so drift on a shared machine hits them alike. Servers run in their own
 * processes (bench/servers.ts), the raw graph in another (bench/inproc.ts); this process
 * is the load generator (autocannon for request/response, node:http for SSE).
 *
 *   node --import tsx bench/run.ts [echo] [stream] [open] [memory] [--rounds=5] [--profile]
 *
 * Durations: BENCH_ECHO_SECONDS, BENCH_STREAM_SECONDS (4), BENCH_OPEN_STREAMS (1000),
 * BENCH_MEMORY_TASKS (10000).
 *
 * No scenario named: all four. `--profile` starts our servers with `--cpu-prof` (profiles
 * in bench/profiles/<server>-<graph>/; read them with bench/profile-summary.ts). Figures
 * are medians over the rounds with [min–max].
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import autocannon from 'autocannon';
import { SLOW_TOKENS, TOKENS_PER_STREAM, benchTokens, type GraphName } from './graphs.js';
import { streamOnce } from './sse-client.js';
import {
  cpuUs,
  fmt,
  here,
  median,
  percentile,
  request,
  startServer as startServerProcess,
  streamLoad,
  type ServerProcess,
  type ServerVariant,
} from './harness.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}`));
const ROUNDS = Number(flag('rounds')?.split('=')[1] ?? 5);
const PROFILE = flag('profile') !== undefined;
const chosen = argv.filter((a) => !a.startsWith('--'));
const runs = (s: string) => chosen.length === 0 || chosen.includes(s);

const ECHO_SECONDS = Number(process.env.BENCH_ECHO_SECONDS ?? 4);
const ECHO_CONNECTIONS = 10;
const STREAM_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 4);
const STREAM_CONCURRENCY = 20;
const OPEN_STREAMS = Number(process.env.BENCH_OPEN_STREAMS ?? 1000);
const MEMORY_TASKS = Number(process.env.BENCH_MEMORY_TASKS ?? 10_000);

const startServer = (variant: ServerVariant, graph: GraphName) =>
  startServerProcess(variant, graph, { profile: PROFILE && variant.startsWith('ours') });

async function startInproc(): Promise<{ ask: <T>(m: object) => Promise<T>; stop: () => void }> {
  const child = fork(here('./inproc.ts'), [], { execArgv: ['--import', 'tsx'] });
  await new Promise((resolve) => child.once('message', resolve));
  return { ask: (m) => request(child, m), stop: () => child.kill() };
}

// ---------- scenario 1: SendMessage on echo ----------

const rpcBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
});

function cannon(url: string, body: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body,
    idReplacement: true,
    connections: ECHO_CONNECTIONS,
    duration: seconds,
  });
}

async function checkEcho(url: string, variant: string): Promise<void> {
  const plain = variant === 'fastify' || variant === 'http';
  const res = await fetch(plain ? `${url}/echo` : `${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: plain ? '{"text":"hello"}' : rpcBody.replace('[<id>]', crypto.randomUUID()),
  });
  const text = await res.text();
  const ok = plain ? text.includes('echo: hello') : text.includes('TASK_STATE_COMPLETED');
  if (!ok) throw new Error(`${variant} did not answer the echo request: ${text.slice(0, 300)}`);
}

async function scenarioEcho() {
  console.log(`\n## 1. SendMessage on echo (${ROUNDS} rounds × ${ECHO_SECONDS} s, ${ECHO_CONNECTIONS} connections)`);
  const names = ['ours', 'sdk', 'fastify', 'http'] as const;
  const plain = (name: string) => name === 'fastify' || name === 'http';
  const servers = Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await startServer(n, 'echo')] as const)),
  );
  for (const [name, s] of Object.entries(servers)) {
    await checkEcho(s.url, name);
    const url = plain(name) ? `${s.url}/echo` : `${s.url}/a2a/jsonrpc`;
    await cannon(url, plain(name) ? '{"text":"hello"}' : rpcBody, 2); // warm-up
  }
  const inproc = await startInproc();
  const inprocVariants = [
    {
      kind: 'served',
      concurrency: ECHO_CONNECTIONS,
      label: `in-process graph.stream (served, ${ECHO_CONNECTIONS} at a time)`,
    },
    { kind: 'served', concurrency: 1, label: 'in-process graph.stream (served, 1 at a time)' },
    {
      kind: 'bare',
      concurrency: ECHO_CONNECTIONS,
      label: `in-process graph.stream (bare, ${ECHO_CONNECTIONS} at a time)`,
    },
  ] as const;
  for (const v of inprocVariants) await inproc.ask({ cmd: 'echo', kind: v.kind, concurrency: v.concurrency, ms: 1000 });

  type Row = { rps: number[]; p50: number[]; p99: number[]; cpu: number[]; main: number[]; errors: number };
  const rows: Record<string, Row> = {};
  const row = (k: string) => (rows[k] ??= { rps: [], p50: [], p99: [], cpu: [], main: [], errors: 0 });
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of inprocVariants) {
      const x = await inproc.ask<{ perSecond: number; cpuUsPerCall: number; mainCpuUsPerCall: number }>({
        cmd: 'echo',
        kind: v.kind,
        concurrency: v.concurrency,
        ms: ECHO_SECONDS * 1000,
      });
      row(v.label).rps.push(x.perSecond);
      row(v.label).cpu.push(x.cpuUsPerCall);
      row(v.label).main.push(x.mainCpuUsPerCall);
    }
    for (const [name, s] of Object.entries(servers)) {
      const url = plain(name) ? `${s.url}/echo` : `${s.url}/a2a/jsonrpc`;
      const before = await s.usage();
      const res = await cannon(url, plain(name) ? '{"text":"hello"}' : rpcBody, ECHO_SECONDS);
      const after = await s.usage();
      const done = res['2xx'];
      const k = {
        ours: 'langgraph-a2a (JSON-RPC)',
        sdk: '@a2a-js/sdk Express (JSON-RPC)',
        fastify: 'raw Fastify endpoint',
        http: 'Fastify endpoint, no graph (HTTP alone)',
      }[name]!;
      row(k).rps.push(done / ECHO_SECONDS);
      row(k).p50.push(res.latency.p50);
      row(k).p99.push(res.latency.p99);
      row(k).cpu.push((cpuUs(after.cpu) - cpuUs(before.cpu)) / done);
      row(k).main.push((after.mainCpuUs - before.mainCpuUs) / done);
      row(k).errors += res.errors + res.non2xx + res.timeouts;
    }
    process.stdout.write(`  round ${r + 1}/${ROUNDS} done\n`);
  }
  for (const s of Object.values(servers)) await s.stop();
  inproc.stop();

  const same = median(rows[inprocVariants[0].label]!.cpu);
  const one = median(rows[inprocVariants[1].label]!.cpu);
  const sameMain = median(rows[inprocVariants[0].label]!.main);
  const overhead = (cpu: number, base: number) => `${(((cpu - base) / base) * 100).toFixed(0)} %`;
  console.table(
    Object.fromEntries(
      Object.entries(rows).map(([k, v]) => [
        k,
        {
          'req/s': fmt(v.rps),
          'latency p50 ms': v.p50.length ? fmt(v.p50, 1) : '–',
          'latency p99 ms': v.p99.length ? fmt(v.p99, 1) : '–',
          'CPU µs/req': fmt(v.cpu),
          'main thread µs/req': fmt(v.main),
          [`overhead vs graph, ${ECHO_CONNECTIONS} at a time`]: overhead(median(v.cpu), same),
          'overhead vs graph, 1 at a time': overhead(median(v.cpu), one),
          [`main thread overhead vs graph, ${ECHO_CONNECTIONS} at a time`]: overhead(median(v.main), sameMain),
          errors: v.errors,
        },
      ]),
    ),
  );
}

// ---------- scenario 2: token streaming ----------

const STREAM_SERVERS = {
  ours: 'langgraph-a2a (SSE)',
  'ours-per-chunk': 'langgraph-a2a, coalesceDeltas off (SSE)',
  sdk: '@a2a-js/sdk Express (SSE)',
} as const;

async function scenarioStream(graph: 'tokens' | 'burst') {
  const pace = graph === 'tokens' ? 'one token per event-loop turn' : 'all tokens in one turn (as FakeListChatModel)';
  console.log(
    `\n## 2. Token streaming (${pace}): ${TOKENS_PER_STREAM} tokens per stream, ${STREAM_CONCURRENCY} concurrent streams (${ROUNDS} rounds × ${STREAM_SECONDS} s)`,
  );
  const servers = Object.fromEntries(
    await Promise.all(
      Object.keys(STREAM_SERVERS).map(async (v) => [v, await startServer(v as keyof typeof STREAM_SERVERS, graph)]),
    ),
  ) as Record<keyof typeof STREAM_SERVERS, ServerProcess>;
  const inproc = await startInproc();
  for (const s of Object.values(servers)) await streamLoad(s.url, STREAM_CONCURRENCY, 2); // warm-up
  await inproc.ask({ cmd: 'tokens', graph, concurrency: STREAM_CONCURRENCY, ms: 1000 });

  type Row = {
    tps: number[];
    eps: number[];
    p50: number[];
    p99: number[];
    cpu: number[];
    bad: number;
    streams: number;
  };
  const rows: Record<string, Row> = {};
  const row = (k: string) => (rows[k] ??= { tps: [], eps: [], p50: [], p99: [], cpu: [], bad: 0, streams: 0 });
  for (let r = 0; r < ROUNDS; r++) {
    const x = await inproc.ask<{ perSecond: number; cpuUsPerToken: number }>({
      cmd: 'tokens',
      graph,
      concurrency: STREAM_CONCURRENCY,
      ms: STREAM_SECONDS * 1000,
    });
    row('in-process graph.stream').tps.push(x.perSecond);
    row('in-process graph.stream').cpu.push(x.cpuUsPerToken);
    for (const [name, s] of Object.entries(servers)) {
      const before = await s.usage();
      const { outcomes, wall, whole } = await streamLoad(s.url, STREAM_CONCURRENCY, STREAM_SECONDS);
      const after = await s.usage();
      const tokens = whole * TOKENS_PER_STREAM;
      const v = row(STREAM_SERVERS[name as keyof typeof STREAM_SERVERS]);
      v.tps.push(tokens / wall);
      v.eps.push(outcomes.reduce((n, o) => n + o.artifactFrames, 0) / wall);
      v.p50.push(
        percentile(
          outcomes.map((o) => o.firstFrameMs),
          50,
        ),
      );
      v.p99.push(
        percentile(
          outcomes.map((o) => o.firstFrameMs),
          99,
        ),
      );
      v.cpu.push((cpuUs(after.cpu) - cpuUs(before.cpu)) / tokens);
      v.bad += outcomes.length - whole;
      v.streams += outcomes.length;
    }
    process.stdout.write(`  round ${r + 1}/${ROUNDS} done\n`);
  }
  for (const s of Object.values(servers)) await s.stop();
  inproc.stop();
  const sdk = median(rows[STREAM_SERVERS.sdk]!.tps);
  const raw = median(rows['in-process graph.stream']!.tps);
  console.table(
    Object.fromEntries(
      Object.entries(rows).map(([k, v]) => [
        k,
        {
          'tokens/s': fmt(v.tps),
          'delta frames/s': v.eps.length ? fmt(v.eps) : '–',
          'first frame p50 ms': v.p50.length ? fmt(v.p50, 1) : '–',
          'first frame p99 ms': v.p99.length ? fmt(v.p99, 1) : '–',
          'CPU µs/token': fmt(v.cpu, 1),
          'vs SDK': `${(median(v.tps) / sdk).toFixed(2)}×`,
          'vs raw': `${(median(v.tps) / raw).toFixed(2)}×`,
          'streams (incomplete)': v.streams ? `${v.streams} (${v.bad})` : '–',
        },
      ]),
    ),
  );
}

// ---------- scenario 3: a thousand open streams ----------

const OPEN_RATE = Number(process.env.BENCH_OPEN_RATE ?? 100);

/**
 * `ramp`: streams open at OPEN_RATE a second, so each first frame is measured while up to
 * OPEN_STREAMS − 1 others are open (each lasts ~15 s: all are open at once by the end of
 * the ramp). `burst`: all requests are sent at once, the worst case.
 */
async function openStreams(mode: 'ramp' | 'burst') {
  const s = await startServer('ours', 'slow');
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  await streamOnce(s.url, agent); // warm-up: one stream end to end
  const idle = (await s.usage()).mem.rss;
  let peak = idle;
  let open = 0;
  let maxOpen = 0;
  const sampler = setInterval(() => {
    void s.usage().then((u) => (peak = Math.max(peak, u.mem.rss)));
  }, 250);
  // Server CPU from the first request to the last first frame, per stream: opening them,
  // and the tokens the streams already open send meanwhile.
  const cpu0 = cpuUs((await s.usage()).cpu);
  let firsts = 0;
  let openingCpu: Promise<number> | undefined;
  const t0 = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: OPEN_STREAMS }, async (_, i) => {
      if (mode === 'ramp') {
        const wait = t0 + (i * 1000) / OPEN_RATE - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const o = await streamOnce(s.url, agent, () => {
        maxOpen = Math.max(maxOpen, ++open);
        if (++firsts === OPEN_STREAMS) openingCpu = s.usage().then((u) => cpuUs(u.cpu) - cpu0);
      });
      open--;
      return o;
    }),
  );
  clearInterval(sampler);
  agent.destroy();
  await s.stop();
  const expected = benchTokens(SLOW_TOKENS).join('');
  const first = outcomes.map((o) => o.firstFrameMs);
  return {
    p50: percentile(first, 50),
    p99: percentile(first, 99),
    max: Math.max(...first),
    idle: idle / 2 ** 20,
    peak: peak / 2 ** 20,
    maxOpen,
    cpuPerOpen: ((await openingCpu) ?? NaN) / OPEN_STREAMS,
    bad: outcomes.filter((o) => o.text !== expected || o.finalState !== 'TASK_STATE_COMPLETED').length,
  };
}

async function scenarioOpen() {
  const rounds = Math.min(ROUNDS, 2);
  console.log(
    `\n## 3. ${OPEN_STREAMS} concurrent open streams (${SLOW_TOKENS} tokens, one a second; ramp at ${OPEN_RATE}/s: ${rounds} rounds; burst: 1 round; fresh server each)`,
  );
  const table: Record<string, Record<string, string | number>> = {};
  for (const mode of ['ramp', 'burst'] as const) {
    const results: Array<Awaited<ReturnType<typeof openStreams>>> = [];
    for (let r = 0; r < (mode === 'ramp' ? rounds : 1); r++) results.push(await openStreams(mode));
    const col = (k: keyof (typeof results)[number]) => results.map((x) => x[k]);
    table[`langgraph-a2a (SSE), ${mode}`] = {
      'most open at once': fmt(col('maxOpen')),
      'first frame p50 ms': fmt(col('p50'), 1),
      'first frame p99 ms': fmt(col('p99'), 1),
      'first frame max ms': fmt(col('max'), 1),
      'server CPU ms while opening, per stream': fmt(
        col('cpuPerOpen').map((us) => us / 1000),
        1,
      ),
      'RSS idle MiB': fmt(col('idle')),
      'RSS peak MiB': fmt(col('peak')),
      'KiB per open stream': fmt(
        results.map((x) => ((x.peak - x.idle) * 1024) / x.maxOpen),
        1,
      ),
      'incomplete streams': col('bad').reduce((a, b) => a + b, 0),
    };
    process.stdout.write(`  ${mode} done\n`);
  }
  console.table(table);
}

// ---------- scenario 4: memory per stored task ----------

async function scenarioMemory() {
  const rounds = Math.min(ROUNDS, Number(process.env.BENCH_MEMORY_ROUNDS ?? 1));
  console.log(`\n## 4. Memory per stored completed task (${MEMORY_TASKS} tasks, ${rounds} rounds)`);
  const table: Record<string, Record<string, string>> = {};
  for (const store of ['memory', 'sqlite'] as const) {
    const results: Array<Record<string, number | undefined>> = [];
    for (let r = 0; r < rounds; r++) {
      const child = fork(here('./memory.ts'), [store, String(MEMORY_TASKS)], {
        execArgv: ['--expose-gc', '--import', 'tsx'],
      });
      results.push(await new Promise((resolve) => child.once('message', (m) => resolve(m as never))));
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const col = (k: string) => results.map((x) => x[k]).filter((v): v is number => typeof v === 'number');
    table[store] = {
      'heap B/task (everything)': fmt(col('heapPerTask')),
      'RSS B/task (everything)': fmt(col('rssPerTask')),
      'file B/task (everything)': col('filePerTask').length ? fmt(col('filePerTask')) : '–',
      'heap B/task (task only)': fmt(col('taskOnlyHeapPerTask')),
      'file B/task (task only)': col('taskOnlyFilePerTask').length ? fmt(col('taskOnlyFilePerTask')) : '–',
      'task JSON bytes': fmt(col('taskJsonBytes')),
    };
    process.stdout.write(`  ${store} done\n`);
  }
  console.table(table);
}

console.log(`node ${process.version}, ${new Date().toISOString()}`);
if (runs('echo')) await scenarioEcho();
if (runs('stream')) {
  await scenarioStream('tokens');
  await scenarioStream('burst');
}
if (runs('open')) await scenarioOpen();
if (runs('memory')) await scenarioMemory();
