/**
 * Records the example graphs' streams into examples/graphs/fixtures/*.jsonl, the inputs of
 * the snapshot tests (test/snapshots.test.ts). Run after changing an example graph:
 *   pnpm run record-fixtures [name…]
 * then `pnpm vitest run test/snapshots -u` and review the snapshot diff.
 */
import { fileURLToPath } from 'node:url';
import { recordGraphStream, writeFixture, type RecordInput, type RecordOptions } from 'langgraph-a2a/testing';
import type { StreamableGraph } from 'langgraph-a2a';

interface Scenario {
  /** What the fixture shows. */
  about: string;
  graph: string;
  input: RecordInput;
  options?: RecordOptions;
  env?: Record<string, string>;
}

const SCENARIOS: Record<string, Scenario> = {
  echo: { about: 'a whole message answer', graph: 'echo', input: 'hello there' },
  tokens: { about: 'model tokens streamed as a delta artifact', graph: 'chat', input: 'What can you do?' },
  artifacts: { about: 'stream helpers: files, data, metadata, progress', graph: 'artifacts', input: 'tidal energy' },
  'outbox-message': { about: 'a direct Message reply, no task', graph: 'outbox', input: 'hi' },
  'outbox-task': { about: 'a Task patch from a2a_outbox', graph: 'outbox', input: 'summarize the week' },
  'interrupt-resume': {
    about: 'input-required, then the answer resumes the graph',
    graph: 'approval',
    input: 'pay the invoice',
    options: { resume: [{ approved: true, comment: 'within budget' }] },
  },
  error: { about: 'a node that throws fails the task', graph: 'weather', input: 'Atlantis' },
  cancel: {
    about: 'a run canceled half-way',
    graph: 'long-running',
    input: 'start',
    options: { cancelAfter: 6 },
    env: { LONG_RUNNING_STEPS: '5', LONG_RUNNING_STEP_MS: '1' },
  },
  subgraph: {
    about: 'a compiled subgraph as a node, its tokens streamed',
    graph: 'subgraph',
    input: 'Is the claim true?',
  },
};

const FIXTURES = new URL('../examples/graphs/fixtures/', import.meta.url);

async function main(names: string[]): Promise<void> {
  // The fake models of the examples, never a real one, so recordings are reproducible.
  delete process.env.OPENAI_API_KEY;
  for (const name of names.length ? names : Object.keys(SCENARIOS)) {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`unknown scenario ${name} (known: ${Object.keys(SCENARIOS).join(', ')})`);
    Object.assign(process.env, scenario.env);
    const mod = (await import(`../examples/graphs/src/${scenario.graph}.ts`)) as { graph: StreamableGraph };
    const fixture = await recordGraphStream(mod.graph, scenario.input, {}, scenario.options);
    const file = fileURLToPath(new URL(`${name}.jsonl`, FIXTURES));
    await writeFixture(file, fixture);
    const chunks = fixture.runs.reduce((n, r) => n + r.chunks.length, 0);
    console.log(`${name}: ${fixture.runs.length} run(s), ${chunks} chunks -> ${file}`);
  }
}

await main(process.argv.slice(2));
