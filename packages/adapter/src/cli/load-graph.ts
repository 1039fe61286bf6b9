import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LangGraphA2AError } from '../errors.js';
import { isStreamableGraph, type StreamableGraph } from '../executor/graph.js';

/**
 * Loads `<module>#<export>`: a compiled graph, or a factory (sync or async) returning
 * one. Without `#<export>`, the module's `graph` export, else its default export.
 */
export async function loadGraph(spec: string, cwd = process.cwd()): Promise<StreamableGraph> {
  const hash = spec.lastIndexOf('#');
  const modulePath = hash > 0 ? spec.slice(0, hash) : spec;
  const exportName = hash > 0 ? spec.slice(hash + 1) : undefined;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(cwd, modulePath)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new LangGraphA2AError('GRAPH_LOAD_FAILED', `cannot load module ${modulePath}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const names = exportName ? [exportName] : ['graph', 'default'];
  const name = names.find((n) => mod[n] !== undefined);
  if (name === undefined) {
    const available = Object.keys(mod).join(', ') || 'none';
    throw new LangGraphA2AError(
      'GRAPH_LOAD_FAILED',
      `${modulePath} has no export ${names.join(' or ')} (exports: ${available})`,
    );
  }
  let value = mod[name];
  if (typeof value === 'function' && !isStreamableGraph(value)) value = await (value as () => unknown)();
  if (!isStreamableGraph(value)) {
    throw new LangGraphA2AError(
      'GRAPH_LOAD_FAILED',
      `${modulePath}#${name} is not a compiled graph (call .compile() on the StateGraph, or export a factory that returns one)`,
    );
  }
  return value;
}
