import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatExchanges, readFixture, replayGraph, runA2A, type A2AExchange } from 'langgraph-a2a/testing';

// Every example graph's recorded stream, replayed through the real server: the frames a
// client gets must match the file snapshot beside the recording (review diffs with -u).
const FIXTURES = new URL('../examples/graphs/fixtures/', import.meta.url);
const fixturePath = (name: string) => fileURLToPath(new URL(`${name}.jsonl`, FIXTURES));
const snapshotPath = (name: string, variant: string) =>
  fileURLToPath(new URL(`__snapshots__/${name}.${variant}.json`, FIXTURES));

const NAMES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .sort();

/** What each scenario must show, whatever the snapshot says: the states its exchanges end in. */
const OUTCOMES: Record<string, string[]> = {
  echo: ['completed'],
  tokens: ['completed'],
  artifacts: ['completed'],
  'outbox-message': ['message'],
  'outbox-task': ['completed'],
  'interrupt-resume': ['input-required', 'completed'],
  error: ['failed'],
  // A blocking send that is to be canceled asks to return at once (submitted).
  cancel: ['canceled', 'canceled'],
  'cancel.send': ['submitted', 'canceled'],
  subgraph: ['completed'],
};

const VARIANTS = [
  { variant: 'v1.stream', protocol: 'v1', stream: true },
  { variant: 'v0.3.stream', protocol: 'v0.3', stream: true },
  { variant: 'v1.send', protocol: 'v1', stream: false },
  { variant: 'v0.3.send', protocol: 'v0.3', stream: false },
] as const;

/** The state an exchange ended in, read from its last frame (v1 or v0.3 shape). */
function outcome(exchange: A2AExchange): string {
  const last = exchange.frames.at(-1) as { result?: Record<string, any>; error?: unknown };
  if (!last?.result) return `error ${JSON.stringify(last?.error)}`;
  const r = last.result;
  if (r.message || r.kind === 'message' || (r.role && r.parts)) return 'message';
  const state: string = r.statusUpdate?.status?.state ?? r.task?.status?.state ?? r.status?.state ?? '?';
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace('_', '-');
}

it('every example graph has a recording', () => {
  expect(NAMES).toEqual(
    Object.keys(OUTCOMES)
      .filter((k) => !k.endsWith('.send'))
      .sort(),
  );
});

describe.each(NAMES)('%s', (name) => {
  it.each(VARIANTS)('$variant frames match the snapshot', async ({ variant, protocol, stream }) => {
    const exchanges = await runA2A(replayGraph(await readFixture(fixturePath(name))), undefined, { protocol, stream });
    expect(exchanges.map(outcome)).toEqual(OUTCOMES[stream ? name : `${name}.send`] ?? OUTCOMES[name]);
    await expect(formatExchanges(exchanges)).toMatchFileSnapshot(snapshotPath(name, variant));
  });
});
