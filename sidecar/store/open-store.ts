// Opens the store the configuration names: the only module that imports the backends' readers (the server imports
// this, never a writer).
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
): Store {
  if (config.databaseUrl) {
    return new PgStore({
      url: config.databaseUrl,
      poolSize: config.pgPoolSize,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      maxReplicaLagMs: config.maxReplicaLagMs,
      ...(config.pgConnectionWaitMs === undefined ? {} : { connectionWaitMs: config.pgConnectionWaitMs }),
      ...(config.pgWaitingPerConnection === undefined ? {} : { waitingPerConnection: config.pgWaitingPerConnection }),
    });
  }
  return new SqliteStore(config.databasePath);
}
