import { resolve } from 'node:path';
import { LangGraphA2AError } from '../errors.js';

/** Where the server keeps tasks, push configs, checkpoints and idempotency keys. */
export type StoreSetting = { kind: 'memory' } | { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** The embedded default of `langgraph-a2a serve`: one SQLite file under the project's `.data/`. */
export const DEFAULT_SQLITE_FILE = '.data/langgraph-a2a.sqlite';

/**
 * Parses `memory`, `sqlite:<file>` (relative to `cwd`) or `postgres://…` /
 * `postgresql://…`.
 */
export function parseStoreSetting(value: string, cwd = process.cwd()): StoreSetting {
  const v = value.trim();
  if (v === 'memory') return { kind: 'memory' };
  if (v.startsWith('sqlite:')) {
    const file = v.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!file) throw new LangGraphA2AError('INVALID_OPTIONS', 'sqlite store needs a file: sqlite:<file>');
    return { kind: 'sqlite', file: resolve(cwd, file) };
  }
  if (v.startsWith('postgres://') || v.startsWith('postgresql://')) return { kind: 'postgres', url: v };
  throw new LangGraphA2AError(
    'INVALID_OPTIONS',
    `unknown store "${value}": use memory, sqlite:<file> or postgres://user:password@host:port/database`,
  );
}

export function describeStore(setting: StoreSetting): string {
  switch (setting.kind) {
    case 'memory':
      return 'memory';
    case 'sqlite':
      return `sqlite:${setting.file}`;
    case 'postgres':
      return `postgres://${new URL(setting.url).host}${new URL(setting.url).pathname}`;
    default: {
      const unreachable: never = setting;
      return unreachable;
    }
  }
}
