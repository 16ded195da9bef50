// A build is made of its sources and its configuration, not of the shell that started it. Astro (7.3) inlined into the
// server's code every environment variable whose name occurs in the source of a module that reads import.meta.env
// whole, and the shell's `$_` (the command it last ran) occurs in all of them: `npm run build` and `/usr/bin/env npm run
// build` made different server bundles from the same sources (an operator's review). Built here as an operator's shell
// starts it, with nothing of the test runner's environment.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { filesUnder } from '../../src/lib/files.ts';
import { projectRoot } from '../helpers/env.ts';

const dir = mkdtempSync(join(tmpdir(), 'build-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("holds nothing of the shell that started it in the server's code", () => {
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  const started = '/usr/bin/started-this-way';
  const run = spawnSync(
    'env',
    [
      '-i',
      `PATH=${process.env.PATH}`,
      `HOME=${process.env.HOME}`,
      `_=${started}`,
      process.execPath,
      join(projectRoot, 'node_modules/astro/bin/astro.mjs'),
      'build',
    ],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  expect(run.status, run.stdout.slice(-2000) + run.stderr.slice(-2000)).toBe(0);
  const server = join(dir, 'dist/server');
  const holding = filesUnder(server).filter((file) => readFileSync(join(server, file), 'utf8').includes(started));
  expect(holding).toEqual([]);
  expect(filesUnder(server).length).toBeGreaterThan(3);
}, 240_000);
