// A service manager's part in socket activation, for the upgrade test (issue 64): run by `systemd-socket-activate`,
// which holds the listening socket and hands it over as fd 3, this process starts sidecars on that socket and stops
// them, as `systemctl start bio-sidecar@b` and `systemctl stop bio-sidecar@a` do with a .socket unit. Commands on
// standard input, one a line: `start LOGFILE` (prints `started PID`), `stop PID` (SIGTERM; prints `exited PID CODE MS`, the milliseconds it took).
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { serveFlags } from '../../scripts/sidecar-process.ts';

const root = join(import.meta.dirname, '..', '..');
const running = new Map<number, ChildProcess>();
/** When each was told to stop: its exit line says how long it took (ms). */
const stopping = new Map<number, number>();

for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument = ''] = line.trim().split(/\s+/);
  if (command === 'start') {
    const log = openSync(argument, 'a');
    // The socket as the sidecar's fd 3, LISTEN_FDS saying so (no LISTEN_PID: this process cannot know the pid first).
    const { LISTEN_PID: _forThisProcess, ...env } = process.env;
    const child = spawn(process.execPath, [...serveFlags, join(root, 'sidecar/server.ts')], {
      env: { ...env, LISTEN_FDS: '1' },
      stdio: ['ignore', log, log, 3],
    });
    running.set(child.pid!, child);
    child.once('exit', (code) => {
      running.delete(child.pid!);
      console.log(
        `exited ${child.pid} ${code} ${stopping.has(child.pid!) ? Math.round(performance.now() - stopping.get(child.pid!)!) : ''}`.trimEnd(),
      );
    });
    console.log(`started ${child.pid}`);
  } else if (command === 'stop') {
    stopping.set(Number(argument), performance.now());
    running.get(Number(argument))?.kill('SIGTERM');
  }
}
for (const child of running.values()) child.kill('SIGKILL');
