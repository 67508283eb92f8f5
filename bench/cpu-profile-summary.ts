/**
 * Summarises a V8 .cpuprofile (as `node --cpu-prof` writes it): the functions with the most self time and
 * the most inclusive time, as shares of the samples, named by function and file (node_modules paths from
 * the package on). Used on the MCP benchmark's `--profile` output (`npm run bench:mcp`, the MCP rows of docs/benchmarks.md).
 *
 *   node dist/bench/cpu-profile-summary.js FILE [--top 25] [--last SECONDS]
 *
 * `--last` keeps only the samples of that many seconds before the last second of the profile (the load
 * window, without start-up and shutdown).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, ...rest] = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
if (!file) throw new Error('usage: cpu-profile-summary FILE [--top N] [--last SECONDS]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = option('top', 25);
const last = option('last', 0);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.includes('node_modules/') ? url.slice(url.lastIndexOf('node_modules/') + 13) : url.replace(/^file:\/\/.*?\/dist\//, 'dist/');
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
};

let at = 0;
const times = profile.timeDeltas.map((delta) => (at += delta));
const end = at;
const kept = profile.samples.filter((_, i) => !last || (times[i]! > end - (last + 1) * 1e6 && times[i]! < end - 1e6));
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
for (const id of kept) {
  add(self, label(byId.get(id)!));
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
    const key = label(byId.get(current)!);
    if (seen.has(key)) continue;
    seen.add(key);
    add(inclusive, key);
  }
}
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [key, count] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((count / kept.length) * 100).toFixed(1).padStart(5)} %  ${key}\n`);
  }
};
process.stdout.write(`${kept.length} samples\n`);
print('\nself time', self);
print('\ninclusive time', inclusive);
