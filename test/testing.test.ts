import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AIMessageChunk } from '@langchain/core/messages';
import { LangGraphA2AError } from 'langgraph-a2a';
import {
  deterministicIdsAndClock,
  formatExchanges,
  normalizeIds,
  parseFixture,
  readFixture,
  recordGraphStream,
  replayGraph,
  runA2A,
  serializeFixture,
  type Fixture,
} from 'langgraph-a2a/testing';
import { graph as approval } from '../examples/graphs/src/approval.js';
import { graph as artifacts } from '../examples/graphs/src/artifacts.js';
import { graph as echo } from '../examples/graphs/src/echo.js';
import { graph as subgraph } from '../examples/graphs/src/subgraph.js';

const FIXTURES = new URL('../examples/graphs/fixtures/', import.meta.url);
const fixtureFile = (name: string) => fileURLToPath(new URL(`${name}.jsonl`, FIXTURES));
const snapshotFile = (name: string) => fileURLToPath(new URL(`__snapshots__/${name}.json`, FIXTURES));
const bin = fileURLToPath(new URL('../packages/adapter/bin/langgraph-a2a.js', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

async function drain(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('recordGraphStream and replayGraph', () => {
  it('revive every chunk losslessly: same modes, namespaces, payloads and LangChain classes', async () => {
    const recorded = await recordGraphStream(subgraph, 'Is it true?');
    const revived = await parseFixture(await serializeFixture(recorded));
    expect(revived.header).toMatchObject({
      graph: 'subgraph',
      input: 'Is it true?',
      channels: ['messages', 'question'],
    });
    expect(revived.runs).toHaveLength(1);
    expect(revived.runs[0]!.chunks).toEqual(recorded.runs[0]!.chunks);
    const tokens = revived.runs[0]!.chunks.filter((c) => c.mode === 'messages' && c.namespace.length > 0);
    expect(tokens.length).toBeGreaterThan(10);
    expect((tokens[0]!.payload as unknown[])[0]).toBeInstanceOf(AIMessageChunk);

    const replay = replayGraph(revived);
    const items = await drain(await replay.stream({}, { subgraphs: true }));
    expect(items).toEqual(recorded.runs[0]!.chunks.map((c) => [c.namespace, c.mode, c.payload]));
  });

  it('replays without namespaces, and without subgraph chunks, when subgraphs are not asked for', async () => {
    const fixture = await readFixture(fixtureFile('subgraph'));
    const items = (await drain(await replayGraph(fixture).stream({}, {}))) as unknown[][];
    const root = fixture.runs[0]!.chunks.filter((c) => c.namespace.length === 0);
    expect(items).toEqual(root.map((c) => [c.mode, c.payload]));
  });

  it('records an interrupt and the run its answer resumes', async () => {
    const fixture = await recordGraphStream(approval, 'pay rent', {}, { resume: [{ approved: false }] });
    expect(fixture.runs.map((r) => r.request)).toEqual([{ text: 'pay rent' }, { data: { approved: false } }]);
    expect(fixture.runs[0]!.chunks.some((c) => c.mode === 'updates' && '__interrupt__' in (c.payload as object))).toBe(
      true,
    );
    const exchanges = await runA2A(replayGraph(fixture));
    const last = exchanges[1]!.frames.at(-1) as { result: { statusUpdate: { status: Record<string, any> } } };
    expect(last.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(last.result.statusUpdate.status.message.parts[0].text).toBe('Not done: the plan was rejected.');
  });

  it('throws the recorded error again', async () => {
    const fixture = await readFixture(fixtureFile('error'));
    await expect(drain(await replayGraph(fixture).stream({}, {}))).rejects.toThrow(
      'weather service: no station for "Atlantis"',
    );
  });

  it('refuses a run the recording does not have, and the server fails that task', async () => {
    const replay = replayGraph(await readFixture(fixtureFile('echo')));
    const exchanges = await runA2A(replay, [{ text: 'one' }, { text: 'two' }]);
    const states = exchanges.map((e) => (e.frames.at(-1) as any).result.statusUpdate.status.state);
    expect(states).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED']);
    const error = await replay.stream({}, {}).catch((e: unknown) => e);
    expect(LangGraphA2AError.isInstance(error) && error.code).toBe('REPLAY_EXHAUSTED');
  });

  it.each([
    ['', 'the recording is empty'],
    ['{"type":"run","input":null}', 'line 1: the first line must be the header'],
    ['{"type":"header","format":"other/9"}', 'line 1: unknown format other/9'],
    ['not json', 'line 1: not JSON'],
  ])('rejects a broken recording: %j', async (text, message) => {
    await expect(parseFixture(text)).rejects.toThrow(message);
  });

  it.each([
    ['{"type":"chunk","mode":"values","payload":{}}', 'line 2: a chunk before any run line'],
    ['{"type":"run","input":null}\n{"type":"chunk","mode":"debug","payload":{}}', 'line 3: unknown stream mode debug'],
    ['{"type":"run","input":null}\n{"type":"chunk","ns":"x","mode":"values","payload":{}}', 'line 3: ns must be'],
    ['{"type":"run","input":null}\n{"type":"canceled"}\n{"type":"chunk","mode":"values","payload":{}}', 'line 4'],
    ['{"type":"surprise"}', 'line 2: unknown line type surprise'],
  ])('rejects a broken line after the header: %j', async (lines, message) => {
    const header = (await readFile(fixtureFile('echo'), 'utf8')).split('\n')[0];
    const error = await parseFixture(`${header}\n${lines}`).catch((e: unknown) => e);
    expect(LangGraphA2AError.isInstance(error) && error.code).toBe('INVALID_FIXTURE');
    expect((error as Error).message).toContain(message);
  });
});

describe('runA2A', () => {
  it.each([
    ['echo', echo, 'hello there'],
    ['artifacts', artifacts, 'tidal energy'],
    ['subgraph', subgraph, 'Is it true?'],
  ])('gives the same frames for the live %s graph and its replay', async (_name, graph, text) => {
    const fixture = await recordGraphStream(graph, text);
    for (const protocol of ['v1', 'v0.3'] as const) {
      const live = await runA2A(graph, text, { protocol });
      expect(await runA2A(replayGraph(fixture), text, { protocol })).toEqual(live);
    }
  });

  it('streams the tokens of a model inside a subgraph', async () => {
    const [exchange] = await runA2A(subgraph, 'Is it true?');
    const deltas = exchange!.frames.flatMap((f) => {
      const artifact = (f as any).result?.artifactUpdate?.artifact;
      return artifact?.artifactId === 'langgraph-a2a:stream-delta' ? [artifact.parts[0].text as string] : [];
    });
    expect(deltas.join('')).toBe('Two of three sources agree: the claim holds, with caveats.');
    expect(deltas.length).toBeGreaterThan(10);
  });

  it('fails the snapshot when the recording changes', async () => {
    const text = await readFile(fixtureFile('echo'), 'utf8');
    const snapshot = await readFile(snapshotFile('echo.v1.stream'), 'utf8');
    const frames = async (fixture: Fixture) => formatExchanges(await runA2A(replayGraph(fixture)));
    expect(await frames(await parseFixture(text))).toBe(snapshot);
    const altered = await frames(await parseFixture(text.replaceAll('echo: hello there', 'echo: something else')));
    expect(altered).not.toBe(snapshot);
    expect(altered).toContain('echo: something else');
  });

  it('needs a request for a graph that is not a replay', async () => {
    await expect(runA2A(echo)).rejects.toThrow('runA2A needs a request');
  });

  it('renames task ids and UUIDs in order of appearance, inside text too', () => {
    const a = '0b9c5a52-3e0e-4c1e-9d7b-2f1f4a1c7e10';
    const b = '7d0e3c1a-5b2f-4f6a-8c9d-0e1f2a3b4c5d';
    const frames = [
      { result: { task: { id: a, contextId: 'c', status: {} } } },
      { result: { statusUpdate: { taskId: a, note: `run-${b}-out-0 of ${a}` } } },
      { result: { messageId: b } },
    ];
    expect(normalizeIds(frames)).toEqual([
      { result: { task: { id: 'task-1', contextId: 'c', status: {} } } },
      { result: { statusUpdate: { taskId: 'task-1', note: 'run-uuid-1-out-0 of task-1' } } },
      { result: { messageId: 'uuid-1' } },
    ]);
  });

  it('draws ids and times from a deterministic clock', () => {
    const env = deterministicIdsAndClock({ start: '2030-05-01T00:00:00.000Z', stepMs: 10 });
    expect([env.newId(), env.newId(), env.now(), env.now()]).toEqual([
      'id-0001',
      'id-0002',
      '2030-05-01T00:00:00.000Z',
      '2030-05-01T00:00:00.010Z',
    ]);
  });
});

describe('langgraph-a2a record / replay', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lga2a-record-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records a graph to a file and replays it as the frames runA2A gives', async () => {
    const out = join(dir, 'approval.jsonl');
    await run(
      process.execPath,
      [
        bin,
        'record',
        'examples/graphs/src/approval.ts',
        '--input',
        'ship it',
        '--resume',
        '{"approved":true}',
        '--out',
        out,
      ],
      { cwd: root },
    );
    const fixture = await readFixture(out);
    expect(fixture.runs.map((r) => r.end.kind)).toEqual(['done', 'done']);
    const { stdout } = await run(process.execPath, [bin, 'replay', out, '--protocol', 'v0.3'], { cwd: root });
    expect(stdout).toBe(formatExchanges(await runA2A(replayGraph(fixture), undefined, { protocol: 'v0.3' })));
    expect(stdout).toContain('"state": "input-required"');
    expect(stdout).toContain('Done: ship it.');
  });

  it.each([
    [['record', 'examples/graphs/src/echo.ts'], 'one of --input or --input-json'],
    [['record', 'examples/graphs/src/echo.ts', '--input', 'x', '--cancel-after', '0'], '--cancel-after must be'],
    [['replay', 'examples/graphs/fixtures/echo.jsonl', '--protocol', 'v2'], '--protocol must be v1 or v0.3'],
    [['replay', 'examples/graphs/fixtures/nope.jsonl'], 'cannot read'],
  ])('explains bad usage: %j', async (args, message) => {
    const error = (await run(process.execPath, [bin, ...args], { cwd: root }).catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(error.code).toBeGreaterThan(0);
    expect(error.stderr).toContain(message);
  });
});
