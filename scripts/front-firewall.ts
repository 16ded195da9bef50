// The front's share of new connections, refused where a refusal costs least (issue 60): in the kernel, before nginx
// accepts them. `npm run front -- firewall` prints an nftables ruleset for the port the front listens on: from one
// client address (an IPv6 /64 is one client) so many new connections a second with a burst, and so many open at once;
// a SYN past either is dropped, and the client's kernel sends it again a second later, as it does for a full queue.
// nginx's limits count requests, not connections: one stranger's 4,500 connections, each opened again at once after
// its 429, took another reader's static page to p99 62 ms with the front at its share; with these rules, 5 ms.
// And its small data segments: five addresses each sending sixty-four bodies a byte a segment kept nginx waking for
// every byte (a reader's cached page p99 19-21 ms, 5× its baseline, the control's 0.7×); held to 256 a second with a
// burst of 1,024, 5.8-8.2 ms, and the drip's bytes arrive in the larger segments its kernel sends again.
// The proxies the front trusts (--trust-proxy: an edge, a load balancer) are not counted: their connections carry
// every client's requests.
import { execFileSync } from 'node:child_process';
import { isIPv4, isIPv6 } from 'node:net';

export interface ConnectionLimits {
  /** New connections one client address may open a second, on average. */
  connectionRatePerSecond: number;
  /** New connections it may open at once beyond that rate. */
  connectionBurst: number;
  /** Connections it may hold open at once. */
  connectionsOpen: number;
  /**
   * Small data segments (under 100 bytes on the wire, pushed) one client address may send a second, on average, and
   * beyond that at once: a drip's one-byte segments, each a wake-up and a read for nginx.
   */
  smallSegmentRatePerSecond: number;
  smallSegmentBurst: number;
  /**
   * Bytes one client address may send a second, on average, and beyond that at once: everything it sends, counted by
   * the packet. What follows a body nginx refuses (413) it still reads and drops, for up to 30 s (its lingering_time),
   * as fast as the client sends it.
   */
  bytesPerSecond: number;
  bytesBurst: number;
}

export interface FirewallOptions {
  /** The TCP port the front (or the edge) listens on. */
  port: number;
  limits: ConnectionLimits;
  /** Addresses or CIDRs of trusted proxies, not counted. */
  trustProxy?: string[];
}

/** The name of the table the rules for `port` live in: one a port, so that two fronts' rules never meet. */
export const firewallTable = (port: number) => `bio_front_${port}`;

/** Whether `address` (or a CIDR) is IPv4, IPv6, or neither. */
function family(address: string): 4 | 6 | undefined {
  const [host, bits, ...rest] = address.split('/');
  if (rest.length > 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return undefined;
  if (isIPv4(host!)) return bits === undefined || Number(bits) <= 32 ? 4 : undefined;
  if (isIPv6(host!)) return bits === undefined || Number(bits) <= 128 ? 6 : undefined;
  return undefined;
}

/** The entries of `addresses` that are not an IP address or a CIDR (nginx's realip and nftables take no other). */
export const notAddresses = (addresses: readonly string[]) => addresses.filter((a) => family(a) === undefined);

/** The nftables ruleset (for `nft -f`) that holds each client address to `limits` on `port`. */
export function firewallRules({ port, limits, trustProxy = [] }: FirewallOptions): string {
  const bad = notAddresses(trustProxy);
  if (bad.length > 0) throw new Error(`not an address or a CIDR: ${bad.join(', ')}`);
  const trusted = (v: 4 | 6) => trustProxy.filter((address) => family(address) === v);
  const table = firewallTable(port);
  const { connectionRatePerSecond: rate, connectionBurst: burst, connectionsOpen: open } = limits;
  const { smallSegmentRatePerSecond: smallRate, smallSegmentBurst: smallBurst } = limits;
  const { bytesPerSecond: byteRate, bytesBurst: byteBurst } = limits;
  const v6client = 'ip6 saddr & ffff:ffff:ffff:ffff::';
  // The first rules of each chain that counts a client: a trusted proxy's packets go back uncounted.
  const skipTrusted = [
    ...(trusted(4).length > 0 ? ['    ip saddr @trusted4 return'] : []),
    ...(trusted(6).length > 0 ? ['    ip6 saddr @trusted6 return'] : []),
  ];
  const lines = [
    `# The front's share of new connections on port ${port}, per client address (an IPv6 /64 is one client):`,
    `# ${rate} a second with a burst of ${burst}, and ${open} open at once; a SYN past either is dropped. And its small`,
    `# data segments (under 100 bytes, pushed): ${smallRate} a second with a burst of ${smallBurst}; one past it is dropped.`,
    `# And its bytes: ${byteRate} a second with a burst of ${byteBurst}; a packet past it is dropped.`,
    `# Made by \`npm run front -- firewall\` (scripts/front-firewall.ts). Load it with \`nft -f FILE\` (again to change it);`,
    `# remove it with \`nft delete table inet ${table}\`; \`nft list table inet ${table}\` shows what each rule dropped.`,
    ...(trustProxy.length > 0 ? [`# Not counted: the trusted proxies ${trustProxy.join(', ')}.`] : []),
    // Declared, then deleted, then made: loading the file again replaces the table instead of adding to it.
    `table inet ${table}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    ...(trusted(4).length > 0
      ? [`  set trusted4 { type ipv4_addr; flags interval; elements = { ${trusted(4).join(', ')} } }`]
      : []),
    ...(trusted(6).length > 0
      ? [`  set trusted6 { type ipv6_addr; flags interval; elements = { ${trusted(6).join(', ')} } }`]
      : []),
    // A client's rate is forgotten a minute after its last new connection; its open ones are counted by conntrack.
    '  set rate4 { type ipv4_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  set rate6 { type ipv6_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  set open4 { type ipv4_addr; size 65535; flags dynamic; }',
    '  set open6 { type ipv6_addr; size 65535; flags dynamic; }',
    '  set small4 { type ipv4_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  set small6 { type ipv6_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  set bytes4 { type ipv4_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  set bytes6 { type ipv6_addr; size 65535; flags dynamic,timeout; timeout 1m; }',
    '  chain input {',
    '    type filter hook input priority filter - 10; policy accept;',
    `    tcp dport ${port} ct state new jump per_client`,
    // A segment with data is pushed (PSH) as its writer sends it; a bare acknowledgement is not, and is never counted.
    `    tcp dport ${port} tcp flags & (fin | syn | rst | psh) == psh meta length < 100 jump small_segments`,
    // Every packet, by its whole length: a body sent at a loopback's speed after its 413 (nginx read 63 MiB of one in
    // 129 ms) arrives at the rate instead, its dropped packets sent again by the client's kernel, slower each time.
    `    tcp dport ${port} jump bytes_in`,
    '  }',
    '  chain per_client {',
    ...skipTrusted,
    `    add @rate4 { ip saddr limit rate over ${rate}/second burst ${burst} packets } counter drop`,
    `    add @rate6 { ${v6client} limit rate over ${rate}/second burst ${burst} packets } counter drop`,
    `    add @open4 { ip saddr ct count over ${open} } counter drop`,
    `    add @open6 { ${v6client} ct count over ${open} } counter drop`,
    '  }',
    // Dropped, a segment is sent again by the client's kernel a few hundred milliseconds later, with what was written
    // after it: a drip arrives in larger pieces, a person's few small writes (an HTTP/2 ping) never meet the rate.
    '  chain small_segments {',
    ...skipTrusted,
    `    add @small4 { ip saddr limit rate over ${smallRate}/second burst ${smallBurst} packets } counter drop`,
    `    add @small6 { ${v6client} limit rate over ${smallRate}/second burst ${smallBurst} packets } counter drop`,
    '  }',
    '  chain bytes_in {',
    ...skipTrusted,
    `    add @bytes4 { ip saddr limit rate over ${byteRate} bytes/second burst ${byteBurst} bytes } counter drop`,
    `    add @bytes6 { ${v6client} limit rate over ${byteRate} bytes/second burst ${byteBurst} bytes } counter drop`,
    '  }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** Debian's nft, by its path: a project's node_modules/.bin has another program of that name (@vercel/nft). */
export const NFT = '/usr/sbin/nft';

/** Loads `rules` (firewallRules) into the kernel: as root, with nftables. */
export const loadFirewall = (rules: string) => void execFileSync(NFT, ['-f', '-'], { input: rules });

/** Removes the rules for `port`, if loaded. */
export function removeFirewall(port: number): void {
  try {
    execFileSync(NFT, ['delete', 'table', 'inet', firewallTable(port)], { stdio: 'ignore' });
  } catch {
    // Not loaded.
  }
}
