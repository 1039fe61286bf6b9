import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** A package's version as installed here, found from its entry point (its package.json may not be exported). */
function versionOf(name: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(require.resolve(name));
  } catch {
    return undefined;
  }
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version;
    } catch {
      // not here: look one level up
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Versions of the packages a recording depends on. */
export function packageVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['langgraph-a2a', '@langchain/langgraph', '@langchain/core', '@a2a-js/sdk']) {
    const v = name === 'langgraph-a2a' ? ownVersion() : versionOf(name);
    if (v) out[name] = v;
  }
  return out;
}

function ownVersion(): string | undefined {
  try {
    const url = new URL('../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
