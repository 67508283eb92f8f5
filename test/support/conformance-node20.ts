/**
 * Lets the official MCP conformance suite's CLI start on Node 20. Its bundle imports `globSync` from
 * `fs` (Node 22) at the top, although only its `tier-check` command, which these tests never run,
 * calls it; on Node 20 the import alone stops the CLI from loading. Loaded with `node --import`, this
 * module registers itself as a resolve hook that gives the suite's modules an `fs` with `globSync`
 * added (the real one where Node has it). Nothing else of the suite changes.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const FS_WITH_GLOB = `data:text/javascript,${encodeURIComponent(
  "import fs from 'node:fs'; export * from 'node:fs'; export default fs;" +
    "export const globSync = fs.globSync ?? (() => { throw new Error('fs.globSync needs Node 22 (the conformance suite calls it only in tier-check)'); });",
)}`;

type Resolved = { url: string; shortCircuit?: boolean };
type NextResolve = (specifier: string, context: { parentURL?: string }) => Promise<Resolved>;

export async function resolve(specifier: string, context: { parentURL?: string }, next: NextResolve): Promise<Resolved> {
  const fromSuite = context.parentURL?.includes('/node_modules/@modelcontextprotocol/conformance/') ?? false;
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) return { url: FS_WITH_GLOB, shortCircuit: true };
  return next(specifier, context);
}

// The hooks run in a thread of their own, which loads this module again: only the main thread registers.
if (isMainThread) register(import.meta.url);
