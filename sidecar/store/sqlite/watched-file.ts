// The SQLite file as the sidecar sees it from outside: its identity, size and times from a stat, trusted while the
// folder is still (inotify), so that a request costs no system call. A stat per request was 12% of the CPU of a
// cached live page.
import { accessSync, constants, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../store.ts';

/** How long a stat is trusted while nothing in the folder has changed, and how long between watch attempts. */
export const RECHECK_MS = 1000;

export interface FileState {
  /** Device and inode: another file at the path is another database. */
  id: string;
  /** Identity, size, modification and change times: any write, replacement or chmod changes it. */
  state: string;
  mtimeMs: number;
}

export class WatchedFile {
  readonly path: string;
  private watcher: FSWatcher | undefined;
  private watchRetryAt = 0;
  /** False once the folder changed since the last stat (or when it is not watched). */
  private statHolds = false;
  private statAt = 0;
  private last: FileState | undefined;
  /** Folder events seen so far: while it has not moved (and the folder is watched), nothing was written there. */
  events = 0;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The file's state now. Throws StoreUnavailableError when it is not there, or when a change of its mode or owner
   * made it unreadable (an open connection would go on reading what the owner just made unreadable).
   */
  current(now = Date.now()): FileState {
    if (this.last && this.statHolds && now - this.statAt < RECHECK_MS) return this.last;
    this.watchFolder(now);
    this.statHolds = this.watcher !== undefined;
    this.statAt = now;
    let st;
    try {
      st = statSync(this.path);
    } catch (err) {
      this.last = undefined;
      throw new StoreUnavailableError(`database file ${this.path} is not there`, { cause: err });
    }
    const id = `${st.dev}:${st.ino}`;
    const state = `${id}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    if (state !== this.last?.state) {
      try {
        accessSync(this.path, constants.R_OK);
      } catch (err) {
        this.last = undefined;
        throw new StoreUnavailableError(`database file ${this.path} is not readable`, { cause: err });
      }
    }
    this.last = { id, state, mtimeMs: st.mtimeMs };
    return this.last;
  }

  /** Whether the folder is watched now: when it is not, `events` says nothing. */
  get watching(): boolean {
    return this.watcher !== undefined;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /**
   * Watches the folder (inotify on Linux) so that a write, a replacement or a removal of the file marks the last
   * stat as stale. The event is queued by the kernel when the writer writes, so it is read before any request sent
   * after the writer finished. Where watching fails (no such folder yet, no inotify), every read stats the file.
   */
  private watchFolder(now: number): void {
    if (this.watcher || now < this.watchRetryAt) return;
    try {
      const watcher = watch(dirname(this.path), { persistent: false }, () => {
        this.statHolds = false;
        this.events++;
      });
      watcher.on('error', () => {
        watcher.close();
        if (this.watcher === watcher) this.watcher = undefined;
        this.statHolds = false;
      });
      this.watcher = watcher;
    } catch {
      this.watchRetryAt = now + RECHECK_MS;
    }
  }
}
