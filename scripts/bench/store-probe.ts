// Measurements of revisions' data tiers: `node scripts/bench/store-probe.ts ROOTS MODE ENV ARG` loads the store (or
// the writer) of each checkout in ROOTS (comma-separated) and prints what it measured as JSON. ENV is the database's
// environment as JSON (DATABASE_PATH or DATABASE_URL). Modes:
//   read ROUNDS      every revision's store opened in this one process (the same JIT, the same machine's moment),
//                    then ROUNDS rounds, the revisions taking turns: the largest profile read 300 times and the
//                    largest card 1,500 (cold: a store keeps nothing), and a sitemap part's 50,000 rows read as the
//                    sitemap reads them (slices of 500 by key); the median round of each, µs a read, ms a part
//   import FILE      FILE imported by the first revision's writer, in a process of its own: seconds
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../sidecar/store/store.ts';
import { median } from './numbers.ts';

const [rootList, mode, envJson, arg] = process.argv.slice(2);
const roots = rootList!.split(',');
const root = roots[0]!;
const env = JSON.parse(envJson!) as Record<string, string>;
const { loadConfig } = (await import(join(root, 'sidecar/config.ts'))) as typeof import('../../sidecar/config.ts');
const config = loadConfig({ BASE_URL: 'http://localhost:8080', ...env });

if (mode === 'read') {
  const stores: Store[] = [];
  for (const root of roots) {
    const { openStore } = (await import(
      join(root, 'sidecar/store/open-store.ts')
    )) as typeof import('../../sidecar/store/open-store.ts');
    const store = openStore(config);
    for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
    // Warm: the first reads pay for the connection and the statements' preparation.
    for (let i = 0; i < 200; i++) await Promise.all([store.profile('largest'), store.card('largest-card')]);
    stores.push(store);
  }
  const part = async (store: Store) => {
    let from = '';
    for (let read = 0; read < 50_000;) {
      const rows = await store.livePagesFrom('profile', from, 501);
      read += read === 0 ? rows.length : rows.length - 1;
      if (rows.length < 501) break;
      from = rows[rows.length - 1]!.key;
    }
  };
  const timed = async (times: number, read: () => Promise<unknown>) => {
    const started = performance.now();
    for (let i = 0; i < times; i++) if (!(await read())) throw new Error('nothing read');
    return (performance.now() - started) / times;
  };
  const rounds = Number(arg);
  const results = stores.map(() => ({ profile: [] as number[], card: [] as number[], part: [] as number[] }));
  for (let round = 0; round < rounds; round++)
    for (const i of round % 2 ? [...stores.keys()].reverse() : stores.keys()) {
      const store = stores[i]!;
      results[i]!.profile.push((await timed(300, () => store.profile('largest'))) * 1000);
      results[i]!.card.push((await timed(1500, () => store.card('largest-card'))) * 1000);
      results[i]!.part.push(await timed(1, async () => (await part(store), true)));
    }
  for (const store of stores) await store.close();
  console.log(
    JSON.stringify(
      results.map((r) => ({ profileUs: median(r.profile), cardUs: median(r.card), partMs: median(r.part) })),
    ),
  );
} else if (mode === 'import') {
  const { openWriter } = (await import(
    join(root, 'sidecar/store/writer.ts')
  )) as typeof import('../../sidecar/store/writer.ts');
  const data = JSON.parse(readFileSync(arg!, 'utf8')) as unknown;
  const writer = await openWriter(config);
  const started = performance.now();
  const outcome = await writer.importData(data);
  const seconds = (performance.now() - started) / 1000;
  await writer.close();
  if (!outcome.ok) throw new Error(outcome.errors.slice(0, 3).join('\n'));
  console.log(JSON.stringify({ seconds }));
}
process.exit(0);
