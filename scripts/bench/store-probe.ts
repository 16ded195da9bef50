// One measurement of a revision's data tier, in a process of its own: `node scripts/bench/store-probe.ts ROOT MODE ENV`
// loads the store (or the writer) of the checkout at ROOT and prints what it measured as JSON. ENV is the database's
// environment as JSON (DATABASE_PATH or DATABASE_URL). Modes:
//   read ROUNDS      the largest profile and card read ROUNDS times each, cold (the store keeps nothing), and a
//                    sitemap part's 50,000 rows read as the sitemap reads them (slices of 500 by key): median µs
//                    a profile and a card, ms a part
//   import FILE      FILE imported by the writer: seconds
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './numbers.ts';

const [root, mode, envJson, arg] = process.argv.slice(2);
const env = JSON.parse(envJson!) as Record<string, string>;
const { loadConfig } = (await import(join(root!, 'sidecar/config.ts'))) as typeof import('../../sidecar/config.ts');
const config = loadConfig({ BASE_URL: 'http://localhost:8080', ...env });

if (mode === 'read') {
  const { openStore } = (await import(
    join(root!, 'sidecar/store/open-store.ts')
  )) as typeof import('../../sidecar/store/open-store.ts');
  const store = openStore(config);
  for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
  const rounds = Number(arg);
  const time = async (read: () => Promise<unknown>) => {
    const started = performance.now();
    if (!(await read())) throw new Error('nothing read');
    return (performance.now() - started) * 1000;
  };
  // Warm: the first reads pay for the connection and the statements' preparation.
  for (let i = 0; i < 50; i++) await Promise.all([store.profile('largest'), store.card('largest-card')]);
  const profile: number[] = [];
  const card: number[] = [];
  for (let i = 0; i < rounds; i++) {
    profile.push(await time(() => store.profile('largest')));
    card.push(await time(() => store.card('largest-card')));
  }
  const parts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    let from = '';
    for (let read = 0; read < 50_000;) {
      const rows = await store.livePagesFrom('profile', from, 501);
      const fresh = read === 0 ? rows : rows.slice(1);
      read += fresh.length;
      if (rows.length < 501) break;
      from = rows[rows.length - 1]!.key;
    }
    parts.push(performance.now() - started);
  }
  await store.close();
  console.log(JSON.stringify({ profileUs: median(profile), cardUs: median(card), partMs: median(parts) }));
} else if (mode === 'import') {
  const { openWriter } = (await import(
    join(root!, 'sidecar/store/writer.ts')
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
