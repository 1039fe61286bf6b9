import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { LangGraphA2AError } from '../errors.js';
import { recordGraphStream } from '../testing/record.js';
import { readFixture, serializeFixture } from '../testing/fixture.js';
import { replayGraph } from '../testing/replay.js';
import { formatExchanges, runA2A } from '../testing/run-a2a.js';
import { loadGraph } from './load-graph.js';

export const RECORD_USAGE = `Usage: langgraph-a2a record <module>[#<export>] --input <text> [options]

Runs the graph once (more with --resume) and writes what it streamed as a recording
(JSON lines) that \`langgraph-a2a replay\` and the ./testing API play back.

Options:
  --input <text>        the user's message, mapped to the graph input as the server maps it
  --input-json <json>   a graph input given as it is, instead of --input
  --resume <value>      answer the interrupt the previous run ended on and record that run
                        too (JSON, else text); repeat for several turns
  --cancel-after <n>    cancel the last run after n streamed chunks
  --out <file>          where to write the recording (default: standard output)
`;

export const REPLAY_USAGE = `Usage: langgraph-a2a replay <recording.jsonl> [options]

Serves the recording on a throwaway in-memory server, sends the requests it was recorded
with, and prints every frame the server sent, with deterministic ids and clock.

Options:
  --protocol <v1|v0.3>  the client's wire shape (default: v1)
  --no-stream           use the blocking send instead of streaming
`;

function parseResume(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export async function record(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      input: { type: 'string' },
      'input-json': { type: 'string' },
      resume: { type: 'string', multiple: true },
      'cancel-after': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    out.write(RECORD_USAGE);
    return 0;
  }
  const spec = positionals[0];
  if (spec === undefined || (values.input === undefined) === (values['input-json'] === undefined)) {
    throw new LangGraphA2AError(
      'INVALID_OPTIONS',
      `record needs <module>[#<export>] and one of --input or --input-json\n${RECORD_USAGE}`,
    );
  }
  let input: string | Record<string, unknown>;
  if (values.input !== undefined) input = values.input;
  else {
    try {
      input = JSON.parse(values['input-json']!) as Record<string, unknown>;
    } catch {
      throw new LangGraphA2AError('INVALID_OPTIONS', '--input-json must be JSON');
    }
  }
  let cancelAfter: number | undefined;
  if (values['cancel-after'] !== undefined) {
    cancelAfter = Number(values['cancel-after']);
    if (!Number.isInteger(cancelAfter) || cancelAfter < 1) {
      throw new LangGraphA2AError(
        'INVALID_OPTIONS',
        `--cancel-after must be a positive integer, not "${values['cancel-after']}"`,
      );
    }
  }
  const graph = await loadGraph(spec);
  const fixture = await recordGraphStream(
    graph,
    input,
    {},
    { resume: (values.resume ?? []).map(parseResume), cancelAfter },
  );
  const text = await serializeFixture(fixture);
  if (values.out) {
    await writeFile(values.out, text);
    const chunks = fixture.runs.reduce((n, r) => n + r.chunks.length, 0);
    process.stderr.write(`langgraph-a2a: recorded ${fixture.runs.length} run(s), ${chunks} chunks to ${values.out}\n`);
  } else out.write(text);
  return 0;
}

export async function replay(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      protocol: { type: 'string', default: 'v1' },
      'no-stream': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    out.write(REPLAY_USAGE);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined) throw new LangGraphA2AError('INVALID_OPTIONS', `replay needs a recording\n${REPLAY_USAGE}`);
  const protocol = values.protocol;
  if (protocol !== 'v1' && protocol !== 'v0.3') {
    throw new LangGraphA2AError('INVALID_OPTIONS', `--protocol must be v1 or v0.3, not "${protocol}"`);
  }
  let fixture;
  try {
    fixture = await readFixture(file);
  } catch (error) {
    if (LangGraphA2AError.isInstance(error)) throw error;
    throw new LangGraphA2AError('INVALID_FIXTURE', `cannot read ${file}: ${(error as Error).message}`);
  }
  const exchanges = await runA2A(replayGraph(fixture), undefined, { protocol, stream: !values['no-stream'] });
  out.write(formatExchanges(exchanges));
  return 0;
}
