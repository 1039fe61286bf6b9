/**
 * Summarizes a V8 CPU profile (`--cpu-prof`, as `bench/run.ts --profile` writes): self
 * time of the top functions and of each package, as a share of the non-idle samples.
 *
 *   node --import tsx bench/profile-summary.ts bench/profiles/<dir>/<file>.cpuprofile [top=25] [--from=s]
 *
 * `--from=s` skips the first s seconds of the profile (startup: module loading);
 * `--callers=<function>` lists where that function's self time was called from.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const IDLE = new Set(['(idle)', '(program)']);

/** Where a function comes from: a package name, this project's code, or Node itself. */
function origin(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1]!;
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain) return plain[1]!;
  if (url.startsWith('node:')) return 'node';
  const ours = /\/(packages\/[^/]+|bench|examples)\//.exec(url);
  return ours ? ours[1]! : url;
}

const frameName = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${origin(n.callFrame.url, n.callFrame.functionName)}:${n.callFrame.lineNumber + 1}`;

export async function summarize(file: string, top = 25, fromS = 0, callersOf?: string): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // Time per sample, not counts: sampling intervals vary under load.
  const selfUs = new Map<number, number>();
  let t = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= fromS * 1e6) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (IDLE.has(name)) continue;
    busy += us;
    const where = origin(url, name);
    const key = `${name}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    pkg.set(where, (pkg.get(where) ?? 0) + us);
  }
  const callers = new Map<string, number>();
  if (callersOf) {
    for (const [id, us] of selfUs) {
      if (byId.get(id)!.callFrame.functionName !== callersOf) continue;
      const chain: string[] = [];
      for (let p = parentOf.get(id); p !== undefined && chain.length < 4; p = parentOf.get(p)) {
        chain.push(frameName(byId.get(p)!));
      }
      const key = chain.join(' < ');
      callers.set(key, (callers.get(key) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
  const rank = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${pct(us)}  ${k}`);
  return [
    `${file}${fromS ? ` from ${fromS} s` : ''}: ${(busy / 1e6).toFixed(2)} s non-idle`,
    '',
    'self time by origin:',
    ...rank(pkg, 15),
    '',
    `top ${top} functions by self time:`,
    ...rank(fn, top),
    ...(callersOf ? ['', `${callersOf} called from:`, ...rank(callers, 12)] : []),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const from = Number(args.find((a) => a.startsWith('--from='))?.slice(7) ?? 0);
  const callersOf = args.find((a) => a.startsWith('--callers='))?.slice(10);
  const [file, top] = args.filter((a) => !a.startsWith('--'));
  if (!file) {
    console.error(
      'usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top] [--from=s] [--callers=fn]',
    );
    process.exit(2);
  }
  console.log(await summarize(file, top ? Number(top) : 25, from, callersOf));
}
