// `npm run bench -- --images [--duration S]`: what an owner's image and a link-preview picture cost to make and to
// serve. Making: an import of one profile with an image against the same import without one (the image's own cost,
// for the demo's images and a 12-megapixel phone photo), and the picture drawn with the owner's image against the same
// picture without it, in one process. Serving: the sidecar's cached answers against a bare Fastify route answering
// the same bytes and headers. Writes docs/benchmarks/images.md.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../sidecar/config.ts';
import { openWriter } from '../../sidecar/store/writer.ts';
import { IMAGE_WIDTHS } from '../../src/lib/image-files.ts';
import { profileCard } from '../../src/lib/og.ts';
import { drawOgImage } from '../../src/lib/og-draw.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { baseEnv, demoDatabase, scratch, startBaseline, startSidecar } from './harness.ts';
import { fmt } from './numbers.ts';
import { writeRecord } from './records.ts';
import { wrk } from './wrk.ts';

const RUNS = 7;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A phone's photo of 12 megapixels (4000×3000), with a photo's texture, so that it compresses as one does. */
async function phonePhoto(file: string): Promise<void> {
  const noise = await sharp({
    create: {
      width: 1000,
      height: 750,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .blur(1.2)
    .png()
    .toBuffer();
  await sharp(noise).resize(4000, 3000).modulate({ saturation: 0.6 }).jpeg({ quality: 90 }).toFile(file);
}

/** The median time of importing one profile with `avatarUrl` into a fresh database, and its baseline without one. */
async function importCost(folder: string, avatarUrl: string | undefined): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const writer = await openWriter({ databasePath: join(mkdtempSync(join(scratch, 'img-')), 'bio.db') });
    await writer.migrate();
    const profile = { slug: 'bench', name: 'Bench', lang: 'en', ...(avatarUrl ? { avatarUrl } : {}) };
    times.push(
      await timed(async () => {
        const outcome = await writer.importData({ profiles: [profile] }, { from: join(folder, 'import.json') });
        if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
      }),
    );
    await writer.close();
  }
  return median(times);
}

export async function imagesBench(seconds: number): Promise<void> {
  const config = loadConfig({});
  ensureBuildSync(config, baseEnv({}));
  const folder = mkdtempSync(join(scratch, 'images-'));
  mkdirSync(join(folder, 'images'));
  const sources = ['layla.jpg', 'sam-rivera.jpg', 'northwind-studio.png'].map((name) => {
    copyFileSync(join(projectRoot, 'scripts/demo-images', name), join(folder, 'images', name));
    return { name: `demo ${name}`, file: join(folder, 'images', name) };
  });
  const phone = join(folder, 'images', 'phone.jpg');
  await phonePhoto(phone);
  sources.push({ name: 'a phone photo, 4000×3000 JPEG', file: phone });

  const lines = [
    "# Owners' images and link-preview pictures",
    '',
    `Produced by \`npm run bench -- --images --duration ${seconds}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, sharp ${sharp.versions.sharp ?? '?'} (libvips ${sharp.versions.vips}). Each time is the median of ${RUNS} runs in one process.`,
    '',
    '## Taking an image in (the import)',
    '',
    `One profile imported into a new SQLite file with the image against the same import without it: the difference is what the image costs (read, judged, decoded once, cut to ${IMAGE_WIDTHS.join(', ')} pixels in WebP and JPEG, written). The import runs on the writer's machine, never in the server.`,
    '',
    '| Source | bytes | pixels | import with it, ms | without, ms | the image, ms | its six files, bytes |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const without = await importCost(folder, undefined);
  for (const source of sources) {
    const bytes = readFileSync(source.file);
    const meta = await sharp(bytes).metadata();
    const withImage = await importCost(folder, `images/${source.file.split('/').at(-1)}`);
    const db = join(mkdtempSync(join(scratch, 'img-size-')), 'bio.db');
    const writer = await openWriter({ databasePath: db });
    await writer.importData(
      { profiles: [{ slug: 'size', name: 'Size', lang: 'en', avatarUrl: `images/${source.file.split('/').at(-1)}` }] },
      { from: join(folder, 'import.json') },
    );
    await writer.close();
    const { default: Database } = await import('better-sqlite3');
    const reader = new Database(db, { readonly: true });
    const stored = (reader.prepare('SELECT sum(length(bytes)) AS n FROM images').get() as { n: number }).n;
    reader.close();
    lines.push(
      `| ${source.name} | ${fmt(bytes.length)} | ${fmt(((meta.width ?? 0) * (meta.height ?? 0)) / 1e6, 1)} M | ${fmt(withImage, 1)} | ${fmt(without, 1)} | ${fmt(withImage - without, 1)} | ${fmt(stored)} |`,
    );
    console.log(`${source.name}: ${fmt(withImage - without, 1)} ms`);
  }

  lines.push(
    '',
    '## Drawing a link-preview picture',
    '',
    "A profile's 1200×630 PNG drawn in one process (CanvasKit, loaded once before), with the owner's 384-pixel JPEG against the same picture without it. The sidecar draws it in a render thread on the first request after a change, then serves it from memory.",
    '',
    '| Picture | ms | bytes |',
    '|---|---:|---:|',
  );
  const card = profileCard(config, { slug: 'sam-rivera', name: 'Sam Rivera', lang: 'en', avatar: null });
  const avatar = await sharp(readFileSync(join(projectRoot, 'scripts/demo-images/sam-rivera.jpg')))
    .resize(384, 384)
    .jpeg()
    .toBuffer();
  await drawOgImage(card);
  const draws: Record<string, { ms: number; bytes: number }> = {};
  for (const [name, picture] of [
    ['without the owner’s image', undefined],
    ['with it', avatar],
  ] as const) {
    const times: number[] = [];
    let size = 0;
    for (let run = 0; run < RUNS; run++)
      times.push(await timed(async () => void (size = (await drawOgImage(card, picture)).length)));
    draws[name] = { ms: median(times), bytes: size };
    lines.push(`| ${name} | ${fmt(median(times), 1)} | ${fmt(size)} |`);
  }

  const sidecar = await startSidecar(await demoDatabase('images.db'));
  const html = await (await fetch(`${sidecar.url}/p/sam-rivera`)).text();
  const file = /<img class="avatar" src="([^"]+)"/.exec(html)?.[1] ?? '';
  const ogUrl = new URL(/<meta property="og:image" content="([^"]+)"/.exec(html)?.[1] ?? '');
  const og = ogUrl.pathname + ogUrl.search;
  const rows: [string, string][] = [
    ['An image file (192-pixel JPEG)', file],
    ['A link-preview picture, cached', og],
  ];
  const answers = await Promise.all(
    rows.map(async ([, path]) => {
      const res = await fetch(sidecar.url + path);
      const headers = Object.fromEntries(
        ['content-type', 'cache-control', 'etag'].flatMap((h) =>
          res.headers.get(h) ? [[h, res.headers.get(h)!]] : [],
        ),
      );
      return { path, headers, body: Buffer.from(await res.arrayBuffer()) };
    }),
  );
  const baseline = await startBaseline(
    Object.fromEntries(
      answers.map((a) => [
        a.path.split('?')[0]!,
        { type: a.headers['content-type'] ?? '', body: a.body, headers: a.headers },
      ]),
    ),
  );
  lines.push(
    '',
    '## Serving them',
    '',
    `The sidecar's cached answers (an image file is read from the database on each request; a picture from the live cache) against a bare Fastify route answering the same bytes and headers from memory; wrk -t2 -c50 -d${seconds}s. Behind the front or the edge, both are cached for their lifetime (an image for a year, immutable; a picture until its profile changes).`,
    '',
    '| Answer | bytes | sidecar req/s | p99 ms | bare route req/s | ratio |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const [i, [name, path]] of rows.entries()) {
    await wrk(sidecar.url + path, { seconds: 2 }, scratch);
    const ours = await wrk(sidecar.url + path, { seconds }, scratch);
    const bare = await wrk(baseline + path.split('?')[0], { seconds }, scratch);
    lines.push(
      `| ${name} | ${fmt(answers[i]!.body.length)} | ${fmt(ours.rps)} | ${fmt(ours.p99, 2)} | ${fmt(bare.rps)} | ${fmt(ours.rps / bare.rps, 2)}× |`,
    );
    console.log(`${name}: ${fmt(ours.rps)} req/s against ${fmt(bare.rps)}`);
  }
  writeRecord('images.md', lines.join('\n') + '\n');
  console.log('\n' + lines.join('\n'));
}
