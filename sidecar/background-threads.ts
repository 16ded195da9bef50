// The V8 platform's threads (garbage collection and compilation for every thread of the process, the render threads'
// heaps most of all) below the event loop's thread in the scheduler's eyes, as the render threads are
// (render/render-pool.ts, niceIncrement): when every core is busy, what the event loop serves (a cached page, a static
// file, /health) goes first. Under five addresses' render crawl they took more CPU than the render thread itself
// (2.3 s in ten, against 1.9) at the event loop's priority (issue 46). What they do for the event loop's own heap still
// comes first when the cores are not all busy: a priority only orders who waits.
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The name V8's platform gives its worker threads (`/proc/<pid>/task/<tid>/comm`). */
const PLATFORM_THREAD = 'V8Worker';

/**
 * Lowers the V8 platform's threads by `increment` (nice) below the process's priority; how many it lowered. Linux
 * only (a thread is a task in /proc): elsewhere, and where a thread cannot be lowered, it is left as it is.
 */
export function lowerPlatformThreads(increment: number): number {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  const priority = Math.min(19, getPriority() + increment);
  let lowered = 0;
  for (const task of tasks) {
    try {
      if (readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim() !== PLATFORM_THREAD) continue;
      // setpriority(2) with a thread's id sets that thread's alone.
      setPriority(Number(task), priority);
      lowered++;
    } catch {
      // Gone since the listing, or not ours to change.
    }
  }
  return lowered;
}
