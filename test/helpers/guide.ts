// docs/operations.md's commands, as an operator pastes them (issue 61: a documented command is proven only by a test
// that runs it as printed). A test takes a block of the guide, replaces the machine's paths and names with its own
// (each of which must be in the block: a guide that changes them fails the test), and runs it with bash.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './env.ts';

/** The guide's first ```sh block whose text matches `first`, whole. */
export function guideBlock(first: RegExp): string {
  const guide = readFileSync(join(projectRoot, 'docs/operations.md'), 'utf8');
  const block = [...guide.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).find((text) => first.test(text));
  if (!block) throw new Error(`docs/operations.md has no sh block matching ${first}`);
  return block;
}

/** `block` with `replace` applied, each pair's first string required in it (a guide that changes them fails). */
export function asRunHere(block: string, replace: [string, string][]): string {
  let text = block;
  for (const [from, to] of replace) {
    if (!text.includes(from)) throw new Error(`the guide's block no longer says ${from}:\n${block}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

/**
 * Runs `block` with bash in the project (as the guide's commands are run), `replace` applied (asRunHere). Throws with
 * bash's output when it fails; its output when it succeeds.
 */
export function runGuideBlock(block: string, replace: [string, string][], env: NodeJS.ProcessEnv): string {
  const text = asRunHere(block, replace);
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', text], { cwd: projectRoot, env, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`the guide's block failed (${run.status}):\n${text}\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/**
 * Stops (SIGTERM) whatever listens on `port` on this machine: what a guide's command started in the background and
 * left when its starter went (npm's sidecars, a Varnish), found by its socket.
 */
export function stopListening(port: number): void {
  const listening = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' }).stdout;
  for (const [, pid] of listening.matchAll(/pid=(\d+)/g)) process.kill(Number(pid), 'SIGTERM');
}
