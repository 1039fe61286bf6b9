import { parseArgs } from 'node:util';
import { LangGraphA2AError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createServer } from '../server/create-server.js';
import { loadGraph } from './load-graph.js';
import { record, replay } from './fixtures.js';
import { DEFAULT_SQLITE_FILE, describeStore } from '../stores/setting.js';
import type { RecoveryPolicy } from '../server/recovery.js';

function recoveryPolicy(value: string | undefined): RecoveryPolicy | undefined {
  if (value === undefined || value === 'fail' || value === 'resume') return value;
  throw new LangGraphA2AError('INVALID_OPTIONS', `--recovery must be fail or resume, not "${value}"`);
}

const USAGE = `Usage: langgraph-a2a serve <module>[#<export>] [options]
       langgraph-a2a record <module>[#<export>] --input <text> [--out <file>]   (see record --help)
       langgraph-a2a replay <recording.jsonl> [--protocol v1|v0.3]             (see replay --help)

Serves a compiled LangGraph.js graph as an A2A agent.
<module> is a .ts or .js file; <export> names a compiled graph or a factory
returning one (default: "graph", then the default export).

Options:
  --port <n>          port to listen on (default: $PORT or 8000; 0 picks a free one)
  --host <addr>       address to bind (default: 127.0.0.1)
  --card <json>       agent card fields as JSON, e.g. '{"name":"Helper"}'
  --prefix <path>     where the A2A endpoints are mounted (default: /a2a)
  --public-url <url>  the base URL clients use, for the agent card
  --store <setting>   memory | sqlite:<file> | postgres://… (default: $LANGGRAPH_A2A_STORE
                      or sqlite:.data/langgraph-a2a.sqlite)
  --recovery <policy> tasks cut short by a crash: fail | resume (default: fail)
  --instance-id <id>  this instance's id (a restart with the same id settles its runs at once)
  --no-v03            do not serve v0.3 clients
  --log-level <lvl>   pino level (default: $LOG_LEVEL or info)
  -h, --help          show this help
`;

/** Runs the CLI; resolves with the process exit code once the server has stopped. */
export async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command === 'record' || command === 'replay') {
    try {
      return await (command === 'record' ? record : replay)(argv.slice(1), process.stdout);
    } catch (error) {
      const message = LangGraphA2AError.isInstance(error) || error instanceof TypeError ? error.message : String(error);
      process.stderr.write(`langgraph-a2a ${command}: ${message}\n`);
      const usage =
        (LangGraphA2AError.isInstance(error) && error.code === 'INVALID_OPTIONS') ||
        String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
      return usage ? 2 : 1;
    }
  }
  return serve(argv);
}

async function serve(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      card: { type: 'string' },
      prefix: { type: 'string' },
      'public-url': { type: 'string' },
      'no-v03': { type: 'boolean', default: false },
      store: { type: 'string' },
      recovery: { type: 'string' },
      'instance-id': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const [command, spec] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  if (command !== 'serve' || spec === undefined) {
    process.stderr.write(
      `${command !== 'serve' ? `unknown command: ${command}\n` : 'serve needs <module>[#<export>]\n'}${USAGE}`,
    );
    return 2;
  }
  const logger = createLogger(values['log-level'] ? { level: values['log-level'] } : {});
  try {
    const port = Number(values.port ?? process.env.PORT ?? 8000);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new LangGraphA2AError('INVALID_OPTIONS', `invalid --port: ${values.port}`);
    let card: unknown;
    if (values.card !== undefined) {
      try {
        card = JSON.parse(values.card);
      } catch {
        throw new LangGraphA2AError('INVALID_OPTIONS', '--card must be JSON');
      }
    }
    const graph = await loadGraph(spec);
    const app = await createServer({
      graph,
      logger,
      card: card as Record<string, never> | undefined,
      prefix: values.prefix,
      publicUrl: values['public-url'],
      legacyCompat: !values['no-v03'],
      store: values.store ?? process.env.LANGGRAPH_A2A_STORE ?? `sqlite:${DEFAULT_SQLITE_FILE}`,
      recovery: recoveryPolicy(values.recovery),
      instanceId: values['instance-id'],
      ...(values['heartbeat-ms'] ? { heartbeatMs: Number(values['heartbeat-ms']) } : {}),
    });
    const address = await app.listen({ port, host: values.host ?? '127.0.0.1' });
    process.stdout.write(`langgraph-a2a: serving "${app.a2a.card.name}" at ${address}\n`);
    process.stdout.write(`  agent card: ${address}/.well-known/agent-card.json\n`);
    process.stdout.write(`  store: ${describeStore(app.a2a.persistence.setting)}\n`);
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          logger.warn({ signal }, 'second signal: exiting now');
          process.exit(1);
        }
        stopping = true;
        logger.info({ signal }, 'shutting down');
        app.close().then(
          () => resolve(0),
          (error: unknown) => {
            logger.error({ err: error }, 'error while shutting down');
            resolve(1);
          },
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  } catch (error) {
    const message = LangGraphA2AError.isInstance(error) ? error.message : String(error);
    process.stderr.write(`langgraph-a2a: ${message}\n`);
    if (!LangGraphA2AError.isInstance(error)) logger.error({ err: error }, 'failed to start');
    return 1;
  }
}
