// Told of a change as it commits (issue 65): a connection to the primary that LISTENs on the channel the change log's
// trigger notifies (migrations.ts, version 10), for a sidecar or a purger whose database is a standby, which cannot
// LISTEN itself (a hot standby refuses it). Each notice names the change log's sequence the commit reached and the WAL
// position it had written; the listener reads its standby once that standby has replayed it (services/freshness.ts).
// A notice is a hint: the connection is made again when it drops (its link cut, the primary restarted), with back-off,
// and what was announced meanwhile is found by the poll, which never stops.
import pg from 'pg';
import { CHANGE_CHANNEL } from '../migrations.ts';

export interface ChangeNotice {
  /** The change log's last sequence the committing transaction saw. */
  seq: number;
  /** The primary's WAL position before the commit record (`pg_current_wal_insert_lsn()`), as `X/Y`. */
  lsn: string;
}

/** A notice's payload, or undefined when it is not one (another writer on the channel). */
export function parseNotice(payload: string | undefined): ChangeNotice | undefined {
  const match = /^(\d{1,18}) ([0-9A-F]{1,8}\/[0-9A-F]{1,8})$/.exec(payload ?? '');
  return match ? { seq: Number(match[1]), lsn: match[2]! } : undefined;
}

const BACKOFF_MS = { first: 100, max: 5000 };

export interface ChangeNoticesOptions {
  /** The primary, as a role that may connect (LISTEN needs no other right). */
  url: string;
  /** Each notice, as it arrives. */
  onNotice: (notice: ChangeNotice) => void;
  /** Each time the connection is listening again after it was not: what came meanwhile was not heard. */
  onListening?: () => void;
  log?: (fields: Record<string, unknown>) => void;
}

export class ChangeNotices {
  private readonly options: ChangeNoticesOptions;
  private client: pg.Client | undefined;
  private stopped = false;
  private wait = BACKOFF_MS.first;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the connection is listening now (the metric bio_change_notices_listening). */
  listening = false;
  /** Notices heard since the start. */
  heard = 0;
  /** Times the connection started listening (the first, and each after one was lost). */
  listens = 0;

  constructor(options: ChangeNoticesOptions) {
    this.options = options;
  }

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: 'bio-change-notices',
      connectionTimeoutMillis: 10_000,
      // A link that goes silent (cut, not closed) is found within a minute, not at the next write.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    let failed = false;
    const again = (error: Error | undefined) => {
      if (failed) return;
      failed = true;
      const was = this.listening;
      this.listening = false;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      if (was || error) this.options.log?.({ msg: 'change notices lost; connecting again', error: error?.message });
      this.timer = setTimeout(() => void this.connect(), this.wait);
      this.timer.unref();
      this.wait = Math.min(this.wait * 2, BACKOFF_MS.max);
    };
    client.on('error', (error) => again(error));
    client.on('end', () => again(undefined));
    client.on('notification', (message) => {
      const notice = message.channel === CHANGE_CHANNEL ? parseNotice(message.payload) : undefined;
      if (!notice) return;
      this.heard++;
      this.options.onNotice(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (this.stopped) return void client.end().catch(() => undefined);
      this.listening = true;
      this.listens++;
      this.wait = BACKOFF_MS.first;
      this.options.log?.({ msg: 'listening for change notices' });
      this.options.onListening?.();
    } catch (error) {
      again(error as Error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }
}
