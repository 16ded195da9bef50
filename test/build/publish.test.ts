// Publishing (scripts/publish.ts, src/lib/publishing/plan.ts): the plan on its own, then two real builds published in
// turn to a temporary folder standing in for the bucket. Assets go up before the pages that use them and stay a day
// after the last page that used them; pages and twins go up together; what the build dropped is deleted; only the URLs
// whose bytes changed or disappeared are invalidated, never a fingerprinted asset.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { runEdge } from '../../scripts/edge.ts';
import { runFront } from '../../scripts/front-config.ts';
import { bucketOf, folderBucket, publish, varnishEdge, type Bucket, type Cdn } from '../../scripts/publish.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes, MANIFEST_FILE } from '../../src/lib/build-manifest.ts';
import { typeOfBuildFile } from '../../src/lib/media-types.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { filesUnder } from '../../src/lib/files.ts';
import {
  isFingerprinted,
  MANIFEST_KEY,
  PUBLISH_MANIFEST_FILE,
  publishPlan,
  RETAIN_MS,
  type PublishManifest,
  type PublishPlan,
} from '../../src/lib/publishing/plan.ts';
import { cleanEnv, projectRoot, testConfig } from '../helpers/env.ts';
import { stopNginx } from '../helpers/front.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

describe('the plan', () => {
  const manifest = (files: Record<string, string>, retired?: Record<string, string>): PublishManifest => ({
    version: 1,
    files,
    ...(retired ? { retired } : {}),
  });
  const before = manifest({
    'index.html': 'a',
    'index.md': 'a',
    'en/blog/x.html': 'x',
    'en/blog/x.md': 'x',
    'en/blog/gone.html': 'g',
    'en/blog/gone.md': 'g',
    '_astro/old.svg': 'o',
    'robots.txt': 'r',
  });
  const after = manifest({
    'index.html': 'a',
    'index.md': 'a',
    'en/blog/x.html': 'x2',
    'en/blog/x.md': 'x2',
    'en/blog/new.html': 'n',
    'en/blog/new.md': 'n',
    '_astro/new.svg': 'n',
    'robots.txt': 'r',
  });
  const now = new Date('2026-11-24T12:00:00Z');

  it('uploads new assets first, then changed and new pages with their twins, deletes dropped pages and their twins', () => {
    const plan = publishPlan(after, before, now);
    expect(plan.uploadAssets).toEqual(['_astro/new.svg']);
    expect(plan.uploadPages).toEqual(['en/blog/new.html', 'en/blog/new.md', 'en/blog/x.html', 'en/blog/x.md']);
    expect(plan.deletePages).toEqual(['en/blog/gone.html', 'en/blog/gone.md']);
  });

  it('invalidates exactly the URLs whose bytes changed or disappeared (a twin’s page URL too), no new one, no asset', () => {
    expect(publishPlan(after, before, now).invalidate).toEqual([
      '/en/blog/gone',
      '/en/blog/gone.md',
      '/en/blog/x',
      '/en/blog/x.md',
    ]);
    expect(publishPlan(before, before, now).invalidate).toEqual([]);
    expect(publishPlan(after, undefined, now).invalidate).toEqual([]);
    expect(publishPlan(manifest({ 'index.md': 'b' }), manifest({ 'index.md': 'a' }), now).invalidate).toEqual([
      '/',
      '/index.md',
    ]);
  });

  it('keeps an asset the build dropped for a day, then deletes it; one that comes back is no longer retired', () => {
    const first = publishPlan(after, before, now);
    expect(first.manifest.retired).toEqual({ '_astro/old.svg': now.toISOString() });
    expect(first.deleteAssets).toEqual([]);
    const soon = publishPlan(after, first.manifest, new Date(now.getTime() + RETAIN_MS - 1));
    expect([soon.deleteAssets, soon.manifest.retired]).toEqual([[], first.manifest.retired]);
    const later = publishPlan(after, first.manifest, new Date(now.getTime() + RETAIN_MS));
    expect([later.deleteAssets, later.manifest.retired]).toEqual([['_astro/old.svg'], {}]);
    const back = publishPlan(
      manifest({ ...after.files, '_astro/old.svg': 'o' }),
      first.manifest,
      new Date(now.getTime() + RETAIN_MS),
    );
    expect([back.deleteAssets, back.manifest.retired]).toEqual([[], {}]);
  });

  it('caches fingerprinted assets for a year and everything else by its declared rule', () => {
    const plan = publishPlan(after, before, now);
    expect(plan.cacheControl('_astro/new.svg')).toBe('public, max-age=31536000, immutable');
    expect(plan.cacheControl('en/blog/x.html')).toBe('public, max-age=300');
    expect(plan.cacheControl('robots.txt')).toBe('public, max-age=3600');
    expect(isFingerprinted('pagefind/en/fragment/en_1a2b.pf_fragment')).toBe(true);
    expect(isFingerprinted('pagefind/ar/index/ar_1a2b.pf_index')).toBe(true);
    expect(isFingerprinted('pagefind/ar/pagefind.ar_1a2b.pf_meta')).toBe(true);
    expect(isFingerprinted('pagefind/en/pagefind-entry.json')).toBe(false);
    expect(isFingerprinted('pagefind/en/pagefind.js')).toBe(false);
  });
});

// Two real builds of a copy of the project, shared by the folder and the S3-compatible server below.
let dir: string;
const builds: string[] = [];

const build = (name: string) => {
  const result = spawnSync(
    process.execPath,
    [join(projectRoot, 'node_modules/astro/bin/astro.mjs'), 'build', '--outDir', join(dir, name)],
    { cwd: dir, env: cleanEnv({}), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  expect(result.status, result.stdout.slice(-2000) + result.stderr.slice(-2000)).toBe(0);
  builds.push(join(dir, name));
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'publish-'));
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  build('first');
  // The second build: one article edited (its text only), one removed.
  const edited = join(dir, 'content/blog/en/link-in-bio-that-works.md');
  // (Its link to the removed article goes too: the content checks would refuse the build.)
  const text = readFileSync(edited, 'utf8').replace(
    'They give the page a few seconds.',
    'They give the page a few seconds, no more.',
  );
  writeFileSync(edited, text.replace(/\[([^[\]]+)\]\(\/en\/blog\/how-ai-agents-read-this-site\)/g, '$1'));
  rmSync(join(dir, 'content/blog/en/how-ai-agents-read-this-site.md'));
  build('second');
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});
const clientFiles = (build: string) => filesUnder(join(build, 'client')).filter((f) => !/\.(gz|br)$/.test(f));
const silent = () => undefined;

describe('two builds published in turn to a folder', () => {
  let bucketDir: string;
  const calls: string[] = [];
  let invalidated: string[] = [];
  let bucket: Bucket;

  beforeAll(() => {
    bucketDir = mkdtempSync(join(tmpdir(), 'bucket-'));
    const folder = folderBucket(bucketDir);
    bucket = {
      ...folder,
      put: (key, body, headers) => (calls.push(`upload ${key}`), folder.put(key, body, headers)),
      remove: (keys) => (keys.forEach((k) => calls.push(`remove ${k}`)), folder.remove(keys)),
    };
  });
  afterAll(() => {
    if (bucketDir) rmSync(bucketDir, { recursive: true, force: true });
  });

  const bucketFiles = () => filesUnder(bucketDir).filter((f) => f !== MANIFEST_KEY);
  const recorder: Cdn = { name: 'a recorder', forget: async (urls) => void (invalidated = urls) };

  it('publishes the first build whole, and invalidates nothing', async () => {
    await publish(builds[0]!, bucket, { cdns: [recorder], now: new Date('2026-11-24T12:00:00Z'), log: silent });
    expect(bucketFiles().sort()).toEqual(clientFiles(builds[0]!).sort());
    expect(invalidated).toEqual([]);
    expect(existsSync(join(bucketDir, MANIFEST_KEY))).toBe(true);
  });

  it('then the second: assets first, the edit and what the removal touched, the removed page and its twin deleted', async () => {
    calls.length = 0;
    await publish(builds[1]!, bucket, { cdns: [recorder], now: new Date('2026-11-24T13:00:00Z'), log: silent });
    // The pages and twins of the second build, and the first build's assets, kept for pages still cached.
    const first = new Set(clientFiles(builds[0]!));
    const second = clientFiles(builds[1]!);
    const retiredAssets = [...first].filter((f) => isFingerprinted(f) && !second.includes(f));
    expect(retiredAssets.length).toBeGreaterThan(0);
    expect(bucketFiles().sort()).toEqual([...second, ...retiredAssets].sort());
    expect(existsSync(join(bucketDir, 'en/blog/how-ai-agents-read-this-site.html'))).toBe(false);
    expect(existsSync(join(bucketDir, 'en/blog/how-ai-agents-read-this-site.md'))).toBe(false);
    // Every new asset is uploaded before the first page.
    const firstPage = calls.findIndex((c) => c.startsWith('upload ') && !isFingerprinted(c.slice(7)));
    const lastAsset = calls.findLastIndex((c) => c.startsWith('upload ') && isFingerprinted(c.slice(7)));
    expect(lastAsset).toBeLessThan(firstPage);
    // Unchanged pages are not uploaded again.
    expect(calls).not.toContain('upload en/blog/qr-or-nfc-business-card.html');
    // Invalidated: the edited article and its twin, the removed one, the lists, feeds and sitemap it was in; nothing
    // fingerprinted, nothing unchanged (the Arabic blog did not change).
    for (const url of [
      '/en/blog/link-in-bio-that-works',
      '/en/blog/link-in-bio-that-works.md',
      '/en/blog/how-ai-agents-read-this-site',
      '/en/blog/how-ai-agents-read-this-site.md',
      '/en/blog',
      '/en/blog.md',
      '/en/blog/rss.xml',
      '/en/blog/feed.json',
      '/en/blog/topics/mcp',
      '/sitemap.xml',
      '/blog/articles.json',
    ]) {
      expect(invalidated, url).toContain(url);
    }
    expect(
      invalidated.filter((u) => u.startsWith('/_astro/') || /^\/pagefind\/[^/]+\/(fragment|index)\//.test(u)),
    ).toEqual([]);
    expect(invalidated.filter((u) => u.startsWith('/ar/') || u.startsWith('/pagefind/ar/'))).toEqual([]);
    expect(invalidated).not.toContain('/en/blog/qr-or-nfc-business-card');
  });

  it('deletes the retired assets a day later, once no cached page can use them', async () => {
    const retired = Object.keys(
      (JSON.parse(readFileSync(join(bucketDir, MANIFEST_KEY), 'utf8')) as PublishManifest).retired ?? {},
    );
    expect(retired.length).toBeGreaterThan(0);
    invalidated = [];
    await publish(builds[1]!, bucket, {
      cdns: [recorder],
      now: new Date(Date.parse('2026-11-24T13:00:00Z') + RETAIN_MS),
      log: silent,
    });
    expect(bucketFiles().sort()).toEqual(clientFiles(builds[1]!).sort());
    expect(invalidated).toEqual([]);
  });
});

// The S3 API for real: s3rver (npm; an S3-compatible server in Node that keeps objects in a folder, runs offline and
// checks signatures), on loopback, with credentials from the environment as the SDK's chain reads them in CI.
describe('two builds published in turn to an S3-compatible server, through the AWS SDK', () => {
  let s3: S3rver;
  let endpoint: string;
  let storage: string;
  const BUCKET = 'site';
  const saved = { ...process.env };

  beforeAll(async () => {
    storage = mkdtempSync(join(tmpdir(), 's3rver-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: storage,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = await s3.run();
    endpoint = `http://127.0.0.1:${port}`;
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await s3?.close();
    if (storage) rmSync(storage, { recursive: true, force: true });
  });

  const objectUrl = (key: string) => `${endpoint}/${BUCKET}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const keys = async () => {
    const client = new S3Client({ endpoint, forcePathStyle: true });
    const all: string[] = [];
    for (let token: string | undefined, first = true; first || token; first = false) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
      all.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    }
    return all.filter((key) => key !== MANIFEST_KEY).sort();
  };
  /** Every object of `build` as stored: its bytes, media type and Cache-Control, read back over HTTP. */
  const expectStored = async (build: string, plan: PublishPlan) => {
    for (const file of clientFiles(build)) {
      const res = await fetch(objectUrl(file));
      expect(res.status, file).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(build, 'client', file))), file).toBe(true);
      expect(res.headers.get('content-type'), file).toBe(typeOfBuildFile(file));
      expect(res.headers.get('cache-control'), file).toBe(plan.cacheControl(file));
    }
  };

  it('publishes the first build: every object with its bytes, media type and cache rule, and the manifest', async () => {
    const plan = await publish(builds[0]!, bucketOf(`s3://${BUCKET}`, endpoint), { log: silent });
    expect(await keys()).toEqual(clientFiles(builds[0]!).sort());
    await expectStored(builds[0]!, plan);
    // What a CDN serving the bucket sends: a page is HTML and its twin Markdown, whatever URL the page answers at.
    for (const [file, type] of [
      ['index.html', 'text/html; charset=utf-8'],
      ['en/blog.html', 'text/html; charset=utf-8'],
      ['en/blog.md', 'text/markdown; charset=utf-8'],
    ])
      expect((await fetch(objectUrl(file!))).headers.get('content-type'), file).toBe(type);
    expect(await (await fetch(objectUrl(MANIFEST_KEY))).json()).toEqual(plan.manifest);
    expect(plan.cacheControl('_astro/x.css')).toBe(CACHE.immutable);
  });

  it('publishes the edit while a reader fetches pages: no page it reads ever names a missing asset', async () => {
    const pages = clientFiles(builds[1]!).filter((f) => f.endsWith('.html'));
    let done = false;
    let read = 0;
    const broken: string[] = [];
    const reader = (async () => {
      for (let i = 0; !done && i < 100_000; i++) {
        const page = pages[i % pages.length]!;
        const res = await fetch(objectUrl(page));
        if (res.status !== 200) {
          await res.arrayBuffer();
          continue;
        }
        const html = await res.text();
        read++;
        for (const [, asset] of html.matchAll(/(?:src|href)="\/(_astro\/[^"?#]+)"/g)) {
          const head = await fetch(objectUrl(asset!), { method: 'HEAD' });
          if (head.status !== 200) broken.push(`${page} → ${asset} (${head.status})`);
        }
      }
    })();
    const plan = await publish(builds[1]!, bucketOf(`s3://${BUCKET}`, endpoint), {
      log: silent,
      now: new Date(),
    });
    done = true;
    await reader;
    expect(broken).toEqual([]);
    expect(read).toBeGreaterThan(0);
    // The second build's objects, the first build's retired assets kept for a day, the removed article gone.
    const retired = Object.keys(plan.manifest.retired ?? {});
    expect(retired.length).toBeGreaterThan(0);
    expect(await keys()).toEqual([...clientFiles(builds[1]!), ...retired].sort());
    await expectStored(builds[1]!, plan);
    expect((await fetch(objectUrl('en/blog/how-ai-agents-read-this-site.html'))).status).toBe(404);
    expect(await (await fetch(objectUrl(MANIFEST_KEY))).json()).toEqual(plan.manifest);
  });

  it('a step that fails stops before the manifest, says which step and key, and the same command finishes the job', async () => {
    // A fresh bucket; a store that refuses one object (as a store may, mid-way), then one that does not.
    const client = new S3Client({ endpoint, forcePathStyle: true });
    await client.send(new CreateBucketCommand({ Bucket: 'again' }));
    const real = bucketOf('s3://again', endpoint);
    const refusing: Bucket = {
      ...real,
      put: (key, body, headers) =>
        key === 'en/blog.html' ? Promise.reject(new Error('AccessDenied')) : real.put(key, body, headers),
    };
    await expect(publish(builds[0]!, refusing, { log: silent })).rejects.toThrow(
      /^Step 2 \(changed pages, twins and files uploaded\) failed at en\/blog\.html: AccessDenied\. Nothing after it was done, and the manifest was not written: run the same command again to finish\.$/,
    );
    expect(await real.read(MANIFEST_KEY)).toBeUndefined();
    const lines: string[] = [];
    await publish(builds[0]!, real, { log: (line) => lines.push(line) });
    expect(lines[0]).toBe('no manifest in the bucket: publishing everything');
    expect(JSON.parse((await real.read(MANIFEST_KEY))!.toString()).files).toEqual(
      JSON.parse(readFileSync(join(builds[0]!, PUBLISH_MANIFEST_FILE), 'utf8')).files,
    );
  });

  it('from the command line without credentials, or with wrong ones: one clear line, exit 1, nothing written', async () => {
    // Asynchronously: the S3 server runs in this process. No instance metadata service on loopback to wait for.
    const run = (env: Record<string, string>) =>
      new Promise<{ status: number | null; stderr: string }>((done) => {
        const child = spawn(
          process.execPath,
          [
            join(projectRoot, 'scripts/publish.ts'),
            '--bucket',
            's3://fresh',
            '--endpoint',
            endpoint,
            '--build',
            builds[0]!,
          ],
          {
            env: {
              PATH: process.env.PATH!,
              HOME: temporaryFolder('home-'),
              AWS_EC2_METADATA_DISABLED: 'true',
              ...env,
            },
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (status) => done({ status, stderr }));
      });
    const none = await run({});
    expect(none.status).toBe(1);
    expect(none.stderr.trim()).toMatch(
      /^Reading the last manifest \(\.publish\/manifest\.json\) failed: .*credentials/i,
    );
    expect(none.stderr.trim().split('\n'), 'one line, no stack trace').toHaveLength(1);
    const wrong = await run({ AWS_ACCESS_KEY_ID: 'nobody', AWS_SECRET_ACCESS_KEY: 'nothing' });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr.trim()).toMatch(/^Reading the last manifest \(\.publish\/manifest\.json\) failed: /);
    expect(wrong.stderr.trim().split('\n'), 'one line, no stack trace').toHaveLength(1);
  });
});

// The project's own edge told what changed: Varnish (deploy/edge.vcl) in front of the nginx front (deploy/nginx.conf)
// serving a folder the builds are published to, as a bucket's website endpoint serves it. Publishing the edit purges
// exactly the URLs whose bytes changed: they are fresh at once, where the edge would keep the old page for its
// max-age; a page that did not change is still a hit.
describe('the edge in front of the published files, purged by the publish', () => {
  let root: string;
  let front: ChildProcess | undefined;
  let edge: ChildProcess | undefined;
  let edgeUrl: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'published-'));
    const bucketDir = join(root, 'client');
    cpSync(join(builds[0]!, MANIFEST_FILE), join(root, MANIFEST_FILE));
    await publish(builds[0]!, folderBucket(bucketDir), { log: silent });
    const port = await freePort();
    // No sidecar: live routes are not the point here, and answer 502.
    ({ nginx: front } = await runFront({
      config: testConfig,
      sidecars: ['127.0.0.1:9'],
      prefix: join(root, 'nginx'),
      port,
      dist: bucketDir,
    }));
    ({ url: edgeUrl, varnish: edge } = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: `127.0.0.1:${port}`,
      probePath: '/robots.txt',
      dist: bucketDir,
      headers: securityHeaders(testConfig, buildStyleHashes(root)),
      prefix: join(root, 'varnish'),
    }));
  }, 60_000);
  afterAll(async () => {
    edge?.kill('SIGKILL');
    if (front) await stopNginx(front);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const read = async (path: string, accept = 'text/html') => {
    const res = await fetch(edgeUrl + path, { headers: { accept } });
    return { status: res.status, cache: res.headers.get('cache-status') ?? '', body: await res.text() };
  };
  const EDITED = '/en/blog/link-in-bio-that-works';
  const REMOVED = '/en/blog/how-ai-agents-read-this-site';
  const UNCHANGED = '/en/blog/qr-or-nfc-business-card';

  it('serves the first build, and keeps it', async () => {
    for (const [path, accept] of [
      [EDITED, 'text/html'],
      [EDITED, 'text/markdown'],
      [REMOVED, 'text/html'],
      [UNCHANGED, 'text/html'],
    ] as const) {
      expect((await read(path, accept)).status, path).toBe(200);
      const again = await read(path, accept);
      expect(again.cache, `${path} ${accept}`).toMatch(/^edge; hit/);
    }
    expect((await read(EDITED)).body).toContain('They give the page a few seconds.');
  });

  it('publishing the edit with --purge-edge: the changed pages and twins fresh at once, the removed one gone, the rest kept', async () => {
    const lines: string[] = [];
    const plan = await publish(builds[1]!, folderBucket(join(root, 'client')), {
      cdns: [varnishEdge(edgeUrl, new URL(edgeUrl).host)],
      log: (line) => lines.push(line),
    });
    expect(plan.invalidate).toEqual(expect.arrayContaining([EDITED, `${EDITED}.md`, REMOVED]));
    expect(
      lines.some((l) =>
        l.startsWith(`4. URLs forgotten by the edge at ${new URL(edgeUrl).origin}: ${plan.invalidate.length} (`),
      ),
      lines.join('\n'),
    ).toBe(true);
    const html = await read(EDITED);
    expect(html.cache).not.toMatch(/hit/);
    expect(html.body).toContain('They give the page a few seconds, no more.');
    expect((await read(EDITED, 'text/markdown')).body).toContain('They give the page a few seconds, no more.');
    expect((await read(REMOVED)).status).toBe(404);
    expect((await read(UNCHANGED)).cache).toMatch(/^edge; hit/);
  });
});
