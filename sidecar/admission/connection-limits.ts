// Connections one client may hold open at once (MAX_CONNECTIONS_PER_CLIENT), and open in a second: without the first,
// one address holding the process's MAX_CONNECTIONS idle sockets shut everyone else out (the bench's idle-sockets
// client did); without the second, a client closing and opening connections as fast as it is answered kept the
// kernel's accept queue full, and a new visitor's connection waited behind hundreds of its connections (about 300 ms,
// issue 46). A client past either is put on the server's block list until it is within both again: Node then closes
// its new connections as it accepts them, before a socket or an HTTP parser is made (a connection handled and closed
// by a listener cost about 0.7 ms of the event loop; one the block list refuses, a few microseconds). A client is an
// address, or an IPv6 /64 (clients.ts' clientOf). The proxies TRUST_PROXY names are not limited: every client of the
// front arrives from its address (their requests are counted per client instead: clients.ts RequestsInProgress).
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

/** A client's connections now, and its budget of new ones (a token bucket: `perClient` at once, as many a second). */
interface ClientConnections {
  open: number;
  tokens: number;
  at: number;
}

/** How soon a blocked client is judged again: its budget refills meanwhile. */
const RECHECK_MS = 250;

/** Whether a connection's peer `address` is one of the proxies `trusted` (TRUST_PROXY) names. */
export function proxyCheck(trusted: string): (address: string | undefined) => boolean {
  const fronts = trustedList(trusted);
  return (address) => {
    if (!address) return false;
    const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
    return fronts.check(plain, isIPv6(plain) ? 'ipv6' : 'ipv4');
  };
}

/**
 * Refuses a connection past `perClient` open from one client, or past `perClient` opened in a second (with a burst of
 * as many); `trusted` (TRUST_PROXY) is not counted.
 */
export function limitConnectionsPerClient(server: Server, perClient: number, trusted: string): void {
  const isFront = proxyCheck(trusted);
  const clients = new Map<string, ClientConnections>();
  const blocked = new Set<string>();
  const refill = (known: ClientConnections, now = performance.now()) => {
    known.tokens = Math.min(perClient, known.tokens + ((now - known.at) / 1000) * perClient);
    known.at = now;
  };
  /** The server's block list made again from the clients blocked now (a BlockList takes no removals). */
  const publish = () => {
    const list = new BlockList();
    for (const client of blocked) {
      if (client.endsWith('::/64')) list.addSubnet(client.slice(0, -'/64'.length), 64, 'ipv6');
      else list.addAddress(client, isIPv6(client) ? 'ipv6' : 'ipv4');
    }
    (server as Server & { blockList: BlockList | undefined }).blockList = blocked.size > 0 ? list : undefined;
  };
  const judge = (client: string) => {
    const known = clients.get(client);
    if (!known) return;
    refill(known);
    const over = known.open >= perClient || known.tokens < 1;
    if (over === blocked.has(client)) return;
    if (over) {
      blocked.add(client);
      const recheck = setInterval(() => {
        judge(client);
        if (!blocked.has(client)) clearInterval(recheck);
      }, RECHECK_MS);
      recheck.unref();
    } else blocked.delete(client);
    publish();
  };
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (!address || isFront(address)) return;
    const client = clientOf(address);
    const known = clients.get(client) ?? { open: 0, tokens: perClient, at: performance.now() };
    clients.set(client, known);
    refill(known);
    // One that came in before the block list knew (or in the same turn): closed here.
    if (known.open >= perClient || known.tokens < 1) {
      socket.destroy();
      judge(client);
      return;
    }
    known.open++;
    known.tokens--;
    judge(client);
    socket.once('close', () => {
      known.open--;
      judge(client);
      // Forgotten once it holds nothing and its budget is whole again.
      refill(known);
      if (known.open === 0 && known.tokens >= perClient && !blocked.has(client)) clients.delete(client);
    });
  });
}
