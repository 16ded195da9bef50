// The firewall as the guide loads it (`npm run front -- firewall`, docs/operations.md), before the front or the edge,
// and a connection that says whether it got through.
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { NFT } from '../../scripts/front-firewall.ts';
import { projectRoot } from './env.ts';

/** The rules `npm run front -- firewall` prints for `port`, with `flags`, loaded. */
export function loadFirewall(port: number, flags: string[] = []): void {
  const rules = execFileSync(
    'npm',
    ['run', '--silent', 'front', '--', 'firewall', '--listen', `0.0.0.0:${port}`, ...flags],
    { cwd: projectRoot, encoding: 'utf8' },
  );
  execFileSync(NFT, ['-f', '-'], { input: rules });
}

/** A connection from `localAddress`; resolves true once established, false if it is not within `ms`. */
export function established(url: URL, localAddress: string, ms: number, held: Socket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress });
    held.push(socket);
    const timer = setTimeout(() => resolve(false), ms);
    const settle = (through: boolean) => {
      clearTimeout(timer);
      resolve(through);
    };
    socket.once('connect', () => settle(true)).on('error', () => settle(false));
  });
}
