/**
 * What the benchmark scripts share: the servers under test, each in its own process
 * (bench/servers.ts), the SSE load, and the statistics the tables print.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { TOKENS_PER_STREAM, benchTokens, type GraphName } from './graphs.js';
import { streamOnce, type StreamOutcome } from './sse-client.js';

export const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
export const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;

// ---------- statistics ----------

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
export const median = (values: number[]) => percentile(values, 50);
/** The median and [min–max] of some rounds. */
export function fmt(values: number[], digits = 0): string {
  const f = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${f(median(values))} [${f(Math.min(...values))}–${f(Math.max(...values))}]`;
}

// ---------- child processes ----------

export interface Usage {
  cpu: NodeJS.CpuUsage;
  mainCpuUs: number;
  mem: NodeJS.MemoryUsage;
}

export function request<T>(child: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

export interface ServerProcess {
  url: string;
  usage: () => Promise<Usage>;
  stop: () => Promise<void>;
}

export type ServerVariant = 'ours' | 'ours-per-chunk' | 'sdk' | 'fastify' | 'http';

/** Starts one server under test; `profile` adds `--cpu-prof` (profiles in bench/profiles/<variant>-<graph>/). */
export async function startServer(
  variant: ServerVariant,
  graph: GraphName,
  opts: { store?: string; profile?: boolean } = {},
): Promise<ServerProcess> {
  const execArgv = ['--import', 'tsx'];
  if (opts.profile) execArgv.push('--cpu-prof', `--cpu-prof-dir=${here(`./profiles/${variant}-${graph}`)}`);
  const child = fork(here('./servers.ts'), [variant, graph, ...(opts.store ? [opts.store] : [])], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as never)));
  return {
    url,
    usage: () => request<Usage>(child, { cmd: 'usage' }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send({ cmd: 'exit' });
      }),
  };
}

// ---------- SSE load ----------

/** The text every token stream carries, whole and in order. */
export const EXPECTED = benchTokens(TOKENS_PER_STREAM).join('');

/** Keeps `concurrency` SendStreamingMessage streams going for `seconds`; `whole` counts complete ones. */
export async function streamLoad(url: string, concurrency: number, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const outcomes: StreamOutcome[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - t0 < seconds * 1000) outcomes.push(await streamOnce(url, agent));
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  agent.destroy();
  const whole = outcomes.filter((o) => o.text === EXPECTED && o.finalState === 'TASK_STATE_COMPLETED').length;
  return { outcomes, wall, whole };
}
