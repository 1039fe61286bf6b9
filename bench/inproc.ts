/**
 * The raw graph, in-process, no server: the cost the servers are compared with. Forked by
 * bench/run.ts; each IPC command runs one measurement and answers with its figures.
 *
 * - `echo`: `graph.stream` of the echo example, `concurrency` calls at a time, for `ms`
 *   milliseconds, `served` (the executor's options: MemorySaver checkpointer, thread id, the
 *   four stream modes, subgraphs) or `bare` (no checkpointer, `streamMode: 'values'`).
 * - `tokens`: `concurrency` runs of the token graph at a time for `ms` milliseconds,
 *   counting the `messages` chunks the caller receives.
 */
import { randomUUID } from 'node:crypto';
import { MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { AIMessage } from '@langchain/core/messages';
import { benchGraph, servedStreamOptions, userInput } from './graphs.js';
import { cpuUs } from './harness.js';
import { mainThreadCpuUs } from './thread-cpu.js';

process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false'; // as the server sets it

const served = benchGraph('echo');
served.checkpointer = new MemorySaver();
// The same node as examples/graphs/src/echo.ts, compiled without a checkpointer.
const bare = new StateGraph(MessagesAnnotation)
  .addNode('echo', (state) => ({ messages: [new AIMessage(`echo: ${state.messages.at(-1)?.text ?? ''}`)] }))
  .addEdge('__start__', 'echo')
  .compile({ name: 'echo' });
const tokenGraphs = { tokens: benchGraph('tokens'), burst: benchGraph('burst') };
for (const g of Object.values(tokenGraphs)) g.checkpointer = new MemorySaver();

async function echo(kind: 'served' | 'bare', concurrency: number, ms: number) {
  const c0 = process.cpuUsage();
  const main0 = mainThreadCpuUs();
  const t0 = performance.now();
  let calls = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - t0 < ms) {
        const input = userInput('hello', randomUUID());
        const stream =
          kind === 'served'
            ? await served.stream(input, servedStreamOptions(randomUUID()))
            : await bare.stream(input, { streamMode: 'values' });
        for await (const item of stream) void item;
        calls++;
      }
    }),
  );
  const wall = performance.now() - t0;
  return {
    calls,
    perSecond: calls / (wall / 1000),
    cpuUsPerCall: cpuUs(process.cpuUsage(c0)) / calls,
    mainCpuUsPerCall: (mainThreadCpuUs() - main0) / calls,
  };
}

async function tokenRuns(graph: 'tokens' | 'burst', concurrency: number, ms: number) {
  const tokens = tokenGraphs[graph];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let tokensSeen = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - t0 < ms) {
        const stream = await tokens.stream(userInput('go', randomUUID()), servedStreamOptions(randomUUID()));
        for await (const item of stream) if ((item as unknown[])[1] === 'messages') tokensSeen++;
      }
    }),
  );
  const wall = performance.now() - t0;
  return {
    tokens: tokensSeen,
    perSecond: tokensSeen / (wall / 1000),
    cpuUsPerToken: cpuUs(process.cpuUsage(c0)) / tokensSeen,
  };
}

process.on(
  'message',
  (
    m:
      | { cmd: 'echo'; kind: 'served' | 'bare'; concurrency: number; ms: number }
      | { cmd: 'tokens'; graph: 'tokens' | 'burst'; concurrency: number; ms: number },
  ) => {
    const work = m.cmd === 'echo' ? echo(m.kind, m.concurrency, m.ms) : tokenRuns(m.graph, m.concurrency, m.ms);
    void work.then((result) => process.send!(result));
  },
);
process.send!({ ready: true });
