// What runs below the event loop when every core is busy (issue 46): the render threads and V8's own threads
// (garbage collection and compilation, for the render threads' heaps most of all). At the event loop's priority,
// V8's threads took more CPU under five addresses' render crawl than the render thread itself, and another reader's
// cached page waited (p99 7.6-8.1 ms against 3.7-4.0; 3.7-4.6 with them lowered). The bench measures the waiting
// (`npm run bench -- --fair`); this reads the priorities the kernel holds, as `ps -L -o tid,ni,comm` shows them.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarProcess } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

/** Each thread of process `pid`: its id, name and nice value (field 19 of /proc's stat). */
function threads(pid: number): { task: number; name: string; nice: number }[] {
  return readdirSync(`/proc/${pid}/task`).map((task) => {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      task: Number(task),
      name: readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim(),
      nice: Number(fields[16]),
    };
  });
}

describe("a sidecar process's threads", () => {
  let sidecar: SidecarProcess;
  beforeAll(async () => {
    sidecar = await spawnTestSidecar({ DATABASE_PATH: await createDatabase() });
  });
  afterAll(() => sidecar?.child.kill('SIGKILL'));

  it("run V8's work and the renders below the event loop", () => {
    const pid = sidecar.child.pid!;
    const all = threads(pid);
    // The event loop's thread is the process's first, its id the process's.
    const loop = all.find((t) => t.task === pid)!;
    const platform = all.filter((t) => t.name === 'V8Worker');
    const renders = all.filter((t) => t.name === 'WorkerThread');
    expect(platform.length).toBeGreaterThan(0);
    expect(renders.length).toBeGreaterThan(0);
    for (const thread of [...platform, ...renders]) expect(thread).toEqual({ ...thread, nice: loop.nice + 5 });
  });
});
