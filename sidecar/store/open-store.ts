// Opens the store the configuration names: the only module that imports the backends' readers (the server imports
// this, never a writer).
import type { FairSlots } from '../admission/fair-slots.ts';
import type { ServerConfig } from '../config.ts';
import { PgStore } from './postgres/pg-store.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** The store for the configured database: PostgreSQL at `databaseUrl`, else the SQLite file at `databasePath`. */
export function openStore(
  config: Pick<
    ServerConfig,
    'databasePath' | 'databaseUrl' | 'pgPoolSize' | 'pgStatementTimeoutMs' | 'maxReplicaLagMs'
  > &
    Partial<Pick<ServerConfig, 'pgConnectionWaitMs' | 'pgWaitingPerConnection'>>,
  /** The PostgreSQL pool's slots, as the app's admission makes them (admission/admission.ts), for the server. */
  pgSlots?: (poolSize: number) => FairSlots,
): Store {
  if (config.databaseUrl) {
    return new PgStore({
      url: config.databaseUrl,
      poolSize: config.pgPoolSize,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      maxReplicaLagMs: config.maxReplicaLagMs,
      ...(config.pgConnectionWaitMs === undefined ? {} : { connectionWaitMs: config.pgConnectionWaitMs }),
      ...(config.pgWaitingPerConnection === undefined ? {} : { waitingPerConnection: config.pgWaitingPerConnection }),
      ...(pgSlots ? { slots: pgSlots(config.pgPoolSize) } : {}),
    });
  }
  return new SqliteStore(config.databasePath);
}
