// Connections one client may hold open at once (MAX_CONNECTIONS_PER_CLIENT): without it, one address holding the
// process's MAX_CONNECTIONS idle sockets shut everyone else out (the bench's idle-sockets client did). A client is an
// address, or an IPv6 /64 (clients.ts' clientOf). The fronts TRUST_PROXY names are not limited: every client of
// the front arrives from its address.
import { BlockList, isIPv6, type Server } from 'node:net';
import { clientOf } from './clients.ts';

/** Addresses and CIDRs, comma-separated (TRUST_PROXY's form), as a list to check addresses against. */
function trustedList(spec: string): BlockList {
  const list = new BlockList();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** Closes at once a connection past `perClient` open from one client; `trusted` (TRUST_PROXY) is not counted. */
export function limitConnectionsPerClient(server: Server, perClient: number, trusted: string): void {
  const fronts = trustedList(trusted);
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (!address) return;
    const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
    if (fronts.check(plain, isIPv6(plain) ? 'ipv6' : 'ipv4')) return;
    const client = clientOf(address);
    const count = open.get(client) ?? 0;
    if (count >= perClient) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}
