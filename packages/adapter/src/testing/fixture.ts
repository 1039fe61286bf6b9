import { readFile, writeFile } from 'node:fs/promises';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { LangGraphA2AError } from '../errors.js';
import type { StreamModeName } from '../mapping/run.js';

/** The first line of every recording; bumped when the line format changes. */
export const FIXTURE_FORMAT = 'langgraph-a2a.recording/1';

/**
 * What an A2A client sent for one run: text, or a data part (an answer to an
 * interrupt with a schema). Replays send the same request again.
 */
export interface RecordedRequest {
  text?: string;
  data?: unknown;
}

/** One `[namespace, mode, payload]` item of `graph.stream()`, payload as LangGraph yielded it. */
export interface RecordedChunk {
  /** Empty for the graph itself, `["node:<id>", …]` for a chunk from inside a subgraph. */
  namespace: string[];
  mode: StreamModeName;
  payload: unknown;
}

/** How a recorded run ended: the stream ran out, the graph threw, or the run was canceled. */
export type RecordedEnd = { kind: 'done' } | { kind: 'error'; name: string; message: string } | { kind: 'canceled' };

export interface RecordedRun {
  /** The graph input of this run (a Command when it resumed an interrupt). */
  input: unknown;
  /** The A2A request the run answers, when it was recorded from one. */
  request?: RecordedRequest;
  chunks: RecordedChunk[];
  end: RecordedEnd;
}

export interface FixtureHeader {
  format: typeof FIXTURE_FORMAT;
  /** The compiled graph's name. */
  graph: string;
  /** The graph's state channels: they decide the inbound and outbound mapping. */
  channels: string[];
  /** Versions of the packages that produced the recording. */
  versions: Record<string, string>;
  /** The input of the first run, as given to the recorder. */
  input: unknown;
}

/** A recorded graph stream: one or more runs on one thread. */
export interface Fixture {
  header: FixtureHeader;
  runs: RecordedRun[];
}

type Line =
  | ({ type: 'header' } & FixtureHeader)
  | { type: 'run'; input: unknown; request?: RecordedRequest }
  | { type: 'chunk'; ns?: string[]; mode: StreamModeName; payload: unknown }
  | { type: 'error'; name: string; message: string }
  | { type: 'canceled' };

const serde = new JsonPlusSerializer();
const decoder = new TextDecoder();
const MODES = new Set<string>(['values', 'messages', 'custom', 'updates']);

/**
 * LangChain objects (messages, chunks, Sets, Maps…) become LangChain's serialized JSON,
 * the checkpointers' own format, so a replay revives them as the same classes.
 */
async function encode(value: unknown): Promise<unknown> {
  if (value === undefined) return null;
  const [, bytes] = await serde.dumpsTyped(value);
  return JSON.parse(typeof bytes === 'string' ? bytes : decoder.decode(bytes)) as unknown;
}

async function decode(value: unknown): Promise<unknown> {
  return serde.loadsTyped('json', JSON.stringify(value)) as Promise<unknown>;
}

/** The fixture as JSON lines: a header, then per run a `run` line, its chunks and how it ended. */
export async function serializeFixture(fixture: Fixture): Promise<string> {
  const lines: Line[] = [{ type: 'header', ...fixture.header, input: await encode(fixture.header.input) }];
  for (const run of fixture.runs) {
    lines.push({ type: 'run', input: await encode(run.input), ...(run.request ? { request: run.request } : {}) });
    for (const chunk of run.chunks) {
      const ns = chunk.namespace.length > 0 ? { ns: chunk.namespace } : {};
      lines.push({ type: 'chunk', ...ns, mode: chunk.mode, payload: await encode(chunk.payload) });
    }
    if (run.end.kind === 'error') lines.push({ type: 'error', name: run.end.name, message: run.end.message });
    if (run.end.kind === 'canceled') lines.push({ type: 'canceled' });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

function bad(lineNo: number, why: string): LangGraphA2AError {
  return new LangGraphA2AError('INVALID_FIXTURE', `recording line ${lineNo}: ${why}`);
}

/** Parses and revives a recording written by {@link serializeFixture}. */
export async function parseFixture(text: string): Promise<Fixture> {
  let header: FixtureHeader | undefined;
  const runs: RecordedRun[] = [];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const source = raw[i]!.trim();
    if (source === '') continue;
    const lineNo = i + 1;
    let line: Line;
    try {
      line = JSON.parse(source) as Line;
    } catch {
      throw bad(lineNo, 'not JSON');
    }
    if (header === undefined) {
      if (line.type !== 'header') throw bad(lineNo, 'the first line must be the header');
      if (line.format !== FIXTURE_FORMAT)
        throw bad(lineNo, `unknown format ${String(line.format)} (want ${FIXTURE_FORMAT})`);
      const { type: _type, ...rest } = line;
      header = { ...rest, input: await decode(rest.input) };
      continue;
    }
    const run = runs.at(-1);
    switch (line.type) {
      case 'run':
        runs.push({
          input: await decode(line.input),
          ...(line.request ? { request: line.request } : {}),
          chunks: [],
          end: { kind: 'done' },
        });
        break;
      case 'chunk':
        if (!run) throw bad(lineNo, 'a chunk before any run line');
        if (!MODES.has(line.mode)) throw bad(lineNo, `unknown stream mode ${String(line.mode)}`);
        if (run.end.kind !== 'done') throw bad(lineNo, 'a chunk after the run ended');
        if (line.ns !== undefined && !(Array.isArray(line.ns) && line.ns.every((n) => typeof n === 'string'))) {
          throw bad(lineNo, 'ns must be a list of strings');
        }
        run.chunks.push({ namespace: line.ns ?? [], mode: line.mode, payload: await decode(line.payload) });
        break;
      case 'error':
        if (!run) throw bad(lineNo, 'an error before any run line');
        run.end = { kind: 'error', name: String(line.name), message: String(line.message) };
        break;
      case 'canceled':
        if (!run) throw bad(lineNo, 'a cancel before any run line');
        run.end = { kind: 'canceled' };
        break;
      default:
        throw bad(lineNo, `unknown line type ${String((line as { type?: unknown }).type)}`);
    }
  }
  if (header === undefined) throw new LangGraphA2AError('INVALID_FIXTURE', 'the recording is empty');
  if (runs.length === 0) throw new LangGraphA2AError('INVALID_FIXTURE', 'the recording has no run');
  return { header, runs };
}

export async function readFixture(path: string): Promise<Fixture> {
  return parseFixture(await readFile(path, 'utf8'));
}

export async function writeFixture(path: string, fixture: Fixture): Promise<void> {
  await writeFile(path, await serializeFixture(fixture));
}
