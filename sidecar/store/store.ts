// The store: what the server reads from the database, behind one interface whose queries are async, so that the
// embedded SQLite file (sqlite/) and PostgreSQL (postgres/) answer alike. Every database failure is a
// StoreUnavailableError (a 503 that recovers); a row that breaks the schema is a CorruptRowError (rows.ts). This
// module stands alone: open-store.ts opens a backend, and the backends import their errors from here.
import type { OwnerDomain } from '../../src/lib/owner-domains.ts';
import type { Card, Profile } from '../../src/lib/live-content.ts';
import type { Lang } from '../../src/lib/locales.ts';

/** The database cannot be read now (missing, locked, replaced by garbage, unreadable): a 503, and it may recover. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export type LivePageKind = 'profile' | 'card';

export interface LivePage {
  /** The slug or card id: the key the next page of rows starts after. */
  key: string;
  /** Its languages: its own first, then those it is translated into. */
  langs: Lang[];
  lastmod: string;
}

/** Where an alias points: the profile, with its owner's plan and whether it is published. */
export interface AliasTarget {
  slug: string;
  plan: 'free' | 'paid';
  published: boolean;
}

/** One row of the change log: a cached thing that may have changed. */
export interface Change {
  kind: 'profile' | 'card' | 'alias';
  key: string;
}

export interface ChangeBatch {
  /** Which database this is (its identity, and for SQLite the file's): another one means everything changed. */
  epoch: string;
  /** The oldest and newest sequence numbers still in the log (0 when it is empty). */
  first: number;
  last: number;
  /** The changes after the sequence asked for, in order; `complete` is false when there were more than asked. */
  changes: Change[];
  complete: boolean;
}

export interface Store {
  /**
   * A token that changes whenever the data may have changed: the cheap check before the change log is read (what an
   * edit evicts is decided per entity, by the log).
   */
  version(): Promise<string>;
  /** Whether a real query against the schema answers now (health): the one place unavailability is a value. */
  isAvailable(): Promise<boolean>;
  /** A published profile with its enabled links (pinned first, then in order) and socials. */
  profile(slug: string): Promise<Profile | undefined>;
  /** An active card, with its owner's profile slug when that profile is published. */
  card(cardId: string): Promise<Card | undefined>;
  /** An image's file by name (image-files.ts): its bytes, or undefined when the database holds none of that name. */
  image(file: string): Promise<Buffer | undefined>;
  alias(alias: string): Promise<AliasTarget | undefined>;
  /** The published profile whose own domain `host` is (owner-domains.ts). */
  domain(host: string): Promise<OwnerDomain | undefined>;
  /** The change log after `seq`, at most `limit` rows. */
  changesSince(seq: number, limit: number): Promise<ChangeBatch>;
  /**
   * Whether this database has replayed the primary's WAL up to `lsn` (`X/Y`): a standby once it has, a primary always
   * (PostgreSQL only: a notice names the position its commit reached, store/postgres/change-notices.ts).
   */
  replayed?(lsn: string): Promise<boolean>;
  /**
   * The sitemap's live part, read by key in bounded steps (keyset pagination: no query reads every row, so that a
   * million profiles are walked in short steps, never in one long one): published profiles by slug, active page-mode
   * cards by card id. The key `offset` rows after the key `after` ('' before the first), or undefined past the end;
   * how many rows follow `after`, counted no further than `max`, and how many of those are translated (each lists a
   * version per language); and up to `limit` pages from the key `start` on.
   */
  liveKeyAfter(kind: LivePageKind, after: string, offset: number): Promise<string | undefined>;
  liveCountAfter(kind: LivePageKind, after: string, max: number): Promise<{ rows: number; translated: number }>;
  livePagesFrom(kind: LivePageKind, start: string, limit: number): Promise<LivePage[]>;
  /** A published profile's active page-mode cards, at most `limit`, as livePagesFrom gives them (its domain's sitemap). */
  cardsOfProfile(slug: string, limit: number): Promise<LivePage[]>;
  close(): Promise<void>;
  /**
   * What an operator watches of a networked database (PostgreSQL only): the standby's replay lag, when the newest
   * commit it has replayed was made on the primary (how old its data is, even cut off from the primary), the pool.
   */
  stats?(): {
    replicaLagMs: number;
    newestCommitAt: string | null;
    poolTotal: number;
    poolIdle: number;
    poolWaiting: number;
  };
}
