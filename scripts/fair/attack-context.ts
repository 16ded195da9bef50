// What an attack is given and what it reports (attacks.ts, stranger.ts).

export interface AttackContext {
  /** Where to send it: the sidecar, the front or the edge. */
  url: URL;
  /** When it stops (a time stamp in ms). */
  end: number;
  /** The loopback addresses it sends from (one client each). */
  addresses: string[];
  /** Generated profiles `bench-1` … `bench-{profiles}` in the database; the attacks take the upper half. */
  profiles: number;
}

/** What the attack's own clients saw: counts by status (and `error`, `opened`, `sent` …). */
export type AttackCounts = Record<string, number>;
