// Publishes a build to the bucket behind the CDN: `npm run publish:site -- --build dist --bucket s3://NAME
// [--distribution ID]`, or `--bucket DIR` for a folder (what the tests use). Reads the manifest of the last
// published build from the bucket, and runs src/lib/publishing/plan.ts's plan: new fingerprinted assets first; then the
// changed pages, twins and other files together; then the files the build no longer has; then an invalidation of
// exactly the URLs whose bytes changed or disappeared; then the new manifest; last, assets retired more than a day
// ago. `--dry-run` prints the plan. The .gz/.br copies are for nginx fronts and are not uploaded.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { typeOf } from '../src/lib/media-types.ts';
import { CACHE } from '../src/lib/surface.ts';
import {
  MANIFEST_KEY,
  PUBLISH_MANIFEST_FILE,
  publishPlan,
  urlOf,
  type PublishManifest,
  type PublishPlan,
} from '../src/lib/publishing/plan.ts';

/** Where the files go: a folder, or an S3 bucket through the AWS CLI. */
export interface Bucket {
  read(key: string): Buffer | undefined;
  /** Uploads `files` (paths under `from`), each with its media type and Cache-Control. */
  upload(from: string, files: string[], headers: (file: string) => { contentType: string; cacheControl: string }): void;
  remove(keys: string[]): void;
  write(key: string, body: string): void;
}

export function folderBucket(root: string): Bucket {
  return {
    read: (key) => (existsSync(join(root, key)) ? readFileSync(join(root, key)) : undefined),
    upload: (from, files) => {
      for (const file of files) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        copyFileSync(join(from, file), join(root, file));
      }
    },
    remove: (keys) => keys.forEach((key) => rmSync(join(root, key), { force: true })),
    write: (key, body) => {
      mkdirSync(dirname(join(root, key)), { recursive: true });
      writeFileSync(join(root, key), body);
    },
  };
}

function aws(args: string[]): string {
  const run = spawnSync('aws', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`aws ${args.slice(0, 3).join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

export function s3Bucket(name: string): Bucket {
  return {
    read: (key) => {
      const dir = mkdtempSync(join(tmpdir(), 'publish-'));
      const run = spawnSync(
        'aws',
        ['s3', 'cp', `s3://${name}/${key}`, join(dir, 'manifest.json'), '--only-show-errors'],
        { encoding: 'utf8' },
      );
      const body = run.status === 0 ? readFileSync(join(dir, 'manifest.json')) : undefined;
      rmSync(dir, { recursive: true, force: true });
      return body;
    },
    // One `aws s3 cp --recursive` per media type and cache rule, over a staging folder of hard links.
    upload: (from, files, headers) => {
      const groups = new Map<string, string[]>();
      for (const file of files) {
        const h = headers(file);
        const key = JSON.stringify([h.contentType, h.cacheControl]);
        groups.set(key, [...(groups.get(key) ?? []), file]);
      }
      for (const [key, group] of groups) {
        const [contentType, cacheControl] = JSON.parse(key) as [string, string];
        const stage = mkdtempSync(join(tmpdir(), 'publish-'));
        for (const file of group) {
          mkdirSync(dirname(join(stage, file)), { recursive: true });
          linkSync(join(from, file), join(stage, file));
        }
        aws([
          's3',
          'cp',
          stage,
          `s3://${name}/`,
          '--recursive',
          '--only-show-errors',
          '--content-type',
          contentType,
          '--cache-control',
          cacheControl,
        ]);
        rmSync(stage, { recursive: true, force: true });
      }
    },
    remove: (keys) => {
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true };
        aws(['s3api', 'delete-objects', '--bucket', name, '--delete', JSON.stringify(batch)]);
      }
    },
    write: (key, body) => {
      const dir = mkdtempSync(join(tmpdir(), 'publish-'));
      writeFileSync(join(dir, 'body'), body);
      aws([
        's3',
        'cp',
        join(dir, 'body'),
        `s3://${name}/${key}`,
        '--only-show-errors',
        '--content-type',
        'application/json',
        '--cache-control',
        CACHE.none,
      ]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CloudFront accepts 3,000 paths in flight: past that, one wildcard is cheaper and as correct. */
const MAX_INVALIDATION_PATHS = 3000;

export function cloudFrontInvalidation(distribution: string): (urls: string[]) => void {
  return (urls) => {
    const items = urls.length > MAX_INVALIDATION_PATHS ? ['/*'] : urls;
    const batch = { Paths: { Quantity: items.length, Items: items }, CallerReference: `publish-${Date.now()}` };
    aws([
      'cloudfront',
      'create-invalidation',
      '--distribution-id',
      distribution,
      '--invalidation-batch',
      JSON.stringify(batch),
    ]);
  };
}

/** Runs the plan against `bucket`; `invalidate` receives the URLs to forget (none: nothing is sent). */
export function publish(
  distDir: string,
  bucket: Bucket,
  invalidate: ((urls: string[]) => void) | undefined,
  now = new Date(),
  log = (line: string) => console.log(line),
): PublishPlan {
  const client = join(distDir, 'client');
  const next = JSON.parse(readFileSync(join(distDir, PUBLISH_MANIFEST_FILE), 'utf8')) as PublishManifest;
  const stored = bucket.read(MANIFEST_KEY);
  const previous = stored ? (JSON.parse(stored.toString('utf8')) as PublishManifest) : undefined;
  const plan = publishPlan(next, previous, now);
  const headers = (file: string) => ({ contentType: typeOf(urlOf(file)), cacheControl: plan.cacheControl(file) });
  const step = (what: string, count: number, run: () => void) => {
    const started = performance.now();
    if (count > 0) run();
    log(`${what}: ${count} (${Math.round(performance.now() - started)} ms)`);
  };
  log(
    previous
      ? 'comparing with the manifest of the last published build'
      : 'no manifest in the bucket: publishing everything',
  );
  step('1. new fingerprinted assets uploaded', plan.uploadAssets.length, () =>
    bucket.upload(client, plan.uploadAssets, headers),
  );
  step('2. changed pages, twins and files uploaded', plan.uploadPages.length, () =>
    bucket.upload(client, plan.uploadPages, headers),
  );
  step('3. removed pages, twins and files deleted', plan.deletePages.length, () => bucket.remove(plan.deletePages));
  step('4. URLs invalidated', invalidate ? plan.invalidate.length : 0, () => invalidate?.(plan.invalidate));
  step('5. manifest stored', 1, () => bucket.write(MANIFEST_KEY, JSON.stringify(plan.manifest) + '\n'));
  step('6. assets retired over a day ago deleted', plan.deleteAssets.length, () => bucket.remove(plan.deleteAssets));
  return plan;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      build: { type: 'string', default: 'dist' },
      bucket: { type: 'string' },
      distribution: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  if (!values.bucket) {
    console.error(
      'usage: npm run publish:site -- --bucket s3://NAME|DIR [--build dist] [--distribution CLOUDFRONT_ID] [--dry-run]',
    );
    process.exit(2);
  }
  const distDir = resolve(values.build);
  const bucket = values.bucket.startsWith('s3://')
    ? s3Bucket(values.bucket.slice('s3://'.length).replace(/\/$/, ''))
    : folderBucket(resolve(values.bucket));
  if (values['dry-run']) {
    const next = JSON.parse(readFileSync(join(distDir, PUBLISH_MANIFEST_FILE), 'utf8')) as PublishManifest;
    const stored = bucket.read(MANIFEST_KEY);
    const { cacheControl: _, ...plan } = publishPlan(
      next,
      stored ? (JSON.parse(stored.toString('utf8')) as PublishManifest) : undefined,
    );
    console.log(JSON.stringify({ ...plan, manifest: undefined }, null, 2));
  } else {
    publish(distDir, bucket, values.distribution ? cloudFrontInvalidation(values.distribution) : undefined);
  }
}
