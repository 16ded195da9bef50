// Publishes a build to the bucket behind the CDN: `npm run publish:site -- --bucket s3://NAME [--endpoint URL]
// [--distribution ID] [--purge-edge URL]…`, or `--bucket DIR` for a folder. Reads the manifest of the last published
// build from the bucket and runs src/lib/publishing/plan.ts's plan: new fingerprinted assets first; then the changed
// pages, twins and other files together; then the files the build no longer has; then the URLs whose bytes changed or
// disappeared are forgotten by every CDN named (CloudFront, the project's Varnish edge); then the new manifest; last,
// assets retired more than a day ago. A step that fails stops the publish before the manifest is written and says
// which step and which key: the next run compares with the manifest still in the bucket and finishes the job.
// `--dry-run` prints the plan. The .gz/.br copies are for nginx fronts and are not uploaded.
//
// The S3 API through the AWS SDK (@aws-sdk/client-s3, lib-storage's multipart upload, client-cloudfront): the SDK's
// own credential chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a workflow's role), region
// (AWS_REGION) and retries (three attempts, with back-off, of what S3 says may be retried). `--endpoint` points it at
// any S3-compatible store (Cloudflare R2, MinIO, Ceph), addressed path-style.
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { commandLine } from './command-line.ts';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { MANIFEST_FILE, type BuildManifest } from '../src/lib/build-manifest.ts';
import { typeOfBuildFile } from '../src/lib/media-types.ts';
import { CACHE } from '../src/lib/surface.ts';
import {
  MANIFEST_KEY,
  PUBLISH_MANIFEST_FILE,
  publishPlan,
  type PublishManifest,
  type PublishPlan,
} from '../src/lib/publishing/plan.ts';

export interface ObjectHeaders {
  contentType: string;
  cacheControl: string;
}

/** Where the files go: a folder (tests, local work) or a bucket that speaks the S3 API. */
export interface Bucket {
  /** What is stored under `key`; undefined when nothing is. */
  read(key: string): Promise<Buffer | undefined>;
  /** Stores `body` (the bytes, or a file's path) under `key` with its media type and Cache-Control. */
  put(key: string, body: Buffer | { file: string }, headers: ObjectHeaders): Promise<void>;
  /** Deletes `keys`; a key already gone is no error. */
  remove(keys: string[]): Promise<void>;
}

/** Something in front of the bucket that keeps copies, told which URLs changed. */
export interface Cdn {
  name: string;
  forget(urls: string[]): Promise<void>;
}

/** How many objects are uploaded or deleted at once. */
const PARALLEL = 16;
/** S3 deletes at most this many keys in one request. */
const DELETE_BATCH = 1000;

export function folderBucket(root: string): Bucket {
  return {
    read: (key) =>
      readFile(join(root, key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      }),
    put: async (key, body) => {
      await mkdir(dirname(join(root, key)), { recursive: true });
      await (Buffer.isBuffer(body) ? writeFile(join(root, key), body) : copyFile(body.file, join(root, key)));
    },
    remove: async (keys) => {
      await Promise.all(keys.map((key) => rm(join(root, key), { force: true })));
    },
  };
}

/**
 * A bucket through the S3 API. `endpoint` (an S3-compatible store) is addressed path-style, and in the region the
 * environment names or us-east-1, which such stores accept; without it, AWS S3 in the SDK's region.
 */
export function s3Bucket(name: string, options: { endpoint?: string | undefined; client?: S3Client } = {}): Bucket {
  const client =
    options.client ??
    new S3Client({
      ...(options.endpoint
        ? { endpoint: options.endpoint, forcePathStyle: true, region: process.env.AWS_REGION ?? 'us-east-1' }
        : {}),
    });
  return {
    read: async (key) => {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: name, Key: key }));
        return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
      } catch (error) {
        if (error instanceof NoSuchKey) return undefined;
        throw error;
      }
    },
    // The multipart helper: one PUT for a file under its part size, parts in parallel past it.
    put: async (key, body, headers) => {
      const upload = new Upload({
        client,
        params: {
          Bucket: name,
          Key: key,
          Body: Buffer.isBuffer(body) ? body : await readFile(body.file),
          ContentType: headers.contentType,
          CacheControl: headers.cacheControl,
        },
      });
      await upload.done();
    },
    remove: async (keys) => {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const result = await client.send(
          new DeleteObjectsCommand({
            Bucket: name,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        const failed = result.Errors?.[0];
        if (failed) throw new KeyError(failed.Key ?? batch[0]!, new Error(`${failed.Code}: ${failed.Message}`));
      }
    },
  };
}

/** CloudFront accepts 3,000 paths in flight: past that, one wildcard is cheaper and as correct. */
const MAX_INVALIDATION_PATHS = 3000;

export function cloudFront(distribution: string, client = new CloudFrontClient({})): Cdn {
  return {
    name: `CloudFront distribution ${distribution}`,
    forget: async (urls) => {
      const items = urls.length > MAX_INVALIDATION_PATHS ? ['/*'] : urls;
      await client.send(
        new CreateInvalidationCommand({
          DistributionId: distribution,
          InvalidationBatch: {
            Paths: { Quantity: items.length, Items: items },
            CallerReference: `publish-${Date.now()}`,
          },
        }),
      );
    },
  };
}

/**
 * The project's Varnish edge (deploy/edge.vcl) at `edge`: a `PURGE` of each URL, with the site's own host, which
 * drops every representation the edge keeps of it (HTML and Markdown, each encoding). Edges purge in parallel.
 */
export function varnishEdge(edge: string, siteHost: string): Cdn {
  const origin = new URL(edge);
  const purge = (path: string) =>
    new Promise<void>((done, fail) => {
      const send = origin.protocol === 'https:' ? requestTls : request;
      const req = send(new URL(path, origin), { method: 'PURGE', headers: { host: siteHost } }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? done() : fail(new KeyError(path, new Error(`the edge answered ${res.statusCode}`))),
        );
      });
      req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', (error) => fail(error instanceof KeyError ? error : new KeyError(path, error)));
      req.end();
    });
  return {
    name: `the edge at ${origin.origin}`,
    forget: (urls) => eachWithin(urls, PARALLEL, purge),
  };
}

/** A failure that names the key (or URL) it happened on. */
class KeyError extends Error {
  readonly key: string;
  constructor(key: string, reason: unknown) {
    super(`${key}: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.key = key;
  }
}

/** A publish stopped: which step, which key, and that running it again finishes the job. */
export class PublishError extends Error {}

/** Runs `work` on every item, at most `limit` at once; the first failure stops new work and is thrown once in flight ends. */
async function eachWithin<T extends string>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: KeyError | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= error instanceof KeyError ? error : new KeyError(item, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure;
}

export interface PublishOptions {
  /** Told the URLs to forget, in turn (none: nothing is sent). */
  cdns?: Cdn[];
  now?: Date;
  log?: (line: string) => void;
}

/** Runs the plan against `bucket`. Throws PublishError, with nothing after the failed step done, when a step fails. */
export async function publish(distDir: string, bucket: Bucket, options: PublishOptions = {}): Promise<PublishPlan> {
  const { cdns = [], now = new Date(), log = (line: string) => console.log(line) } = options;
  const client = join(distDir, 'client');
  const next = JSON.parse(readFileSync(join(distDir, PUBLISH_MANIFEST_FILE), 'utf8')) as PublishManifest;
  const previous = await readManifest(bucket);
  const plan = publishPlan(next, previous, now);
  const headers = (file: string) => ({ contentType: typeOfBuildFile(file), cacheControl: plan.cacheControl(file) });
  const upload = (files: string[]) =>
    eachWithin(files, PARALLEL, (file) => bucket.put(file, { file: join(client, file) }, headers(file)));
  const steps: [what: string, items: number, run: () => Promise<void>][] = [
    ['new fingerprinted assets uploaded', plan.uploadAssets.length, () => upload(plan.uploadAssets)],
    ['changed pages, twins and files uploaded', plan.uploadPages.length, () => upload(plan.uploadPages)],
    ['removed pages, twins and files deleted', plan.deletePages.length, () => bucket.remove(plan.deletePages)],
    ...cdns.map((cdn): [string, number, () => Promise<void>] => [
      `URLs forgotten by ${cdn.name}`,
      plan.invalidate.length,
      () => cdn.forget(plan.invalidate),
    ]),
    [
      'manifest stored',
      1,
      () =>
        bucket.put(MANIFEST_KEY, Buffer.from(JSON.stringify(plan.manifest) + '\n'), {
          contentType: 'application/json',
          cacheControl: CACHE.none,
        }),
    ],
    ['assets retired over a day ago deleted', plan.deleteAssets.length, () => bucket.remove(plan.deleteAssets)],
  ];
  log(
    previous
      ? 'comparing with the manifest of the last published build'
      : 'no manifest in the bucket: publishing everything',
  );
  for (const [index, [what, items, run]] of steps.entries()) {
    const started = performance.now();
    try {
      if (items > 0) await run();
    } catch (error) {
      const where = error instanceof KeyError ? `at ${error.message}` : `: ${(error as Error).message ?? error}`;
      const after = index < steps.length - 1 ? ' Nothing after it was done, and the manifest was not written:' : '';
      throw new PublishError(
        `Step ${index + 1} (${what}) failed ${where}.${after} run the same command again to finish.`,
      );
    }
    log(`${index + 1}. ${what}: ${items} (${Math.round(performance.now() - started)} ms)`);
  }
  return plan;
}

async function readManifest(bucket: Bucket): Promise<PublishManifest | undefined> {
  try {
    const stored = await bucket.read(MANIFEST_KEY);
    return stored ? (JSON.parse(stored.toString('utf8')) as PublishManifest) : undefined;
  } catch (error) {
    throw new PublishError(`Reading the last manifest (${MANIFEST_KEY}) failed: ${(error as Error).message ?? error}`);
  }
}

/** The bucket `--bucket` names: `s3://NAME` (a prefix after it is not supported), or a folder. */
export function bucketOf(spec: string, endpoint?: string): Bucket {
  if (!spec.startsWith('s3://')) return folderBucket(resolve(spec));
  const name = spec.slice('s3://'.length).replace(/\/$/, '');
  if (!name || name.includes('/')) throw new PublishError(`--bucket ${spec}: name a bucket, s3://NAME, with no path`);
  return s3Bucket(name, { endpoint });
}

const USAGE =
  'usage: npm run publish:site -- --bucket s3://NAME|DIR [--endpoint URL] [--build dist] [--distribution CLOUDFRONT_ID] [--purge-edge URL]… [--dry-run]';

if (import.meta.main) {
  const { values } = commandLine(USAGE, {
    options: {
      build: { type: 'string', default: 'dist' },
      bucket: { type: 'string' },
      endpoint: { type: 'string' },
      distribution: { type: 'string' },
      'purge-edge': { type: 'string', multiple: true, default: [] },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  if (!values.bucket) {
    console.error(USAGE);
    process.exit(2);
  }
  const distDir = resolve(values.build);
  try {
    const bucket = bucketOf(values.bucket, values.endpoint);
    if (values['dry-run']) {
      const next = JSON.parse(readFileSync(join(distDir, PUBLISH_MANIFEST_FILE), 'utf8')) as PublishManifest;
      const { cacheControl: _, ...plan } = publishPlan(next, await readManifest(bucket));
      console.log(JSON.stringify({ ...plan, manifest: undefined }, null, 2));
    } else {
      const site = JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8')) as BuildManifest;
      const cdns = [
        ...(values.distribution ? [cloudFront(values.distribution)] : []),
        ...values['purge-edge'].map((edge) => varnishEdge(edge, new URL(site.baseUrl).host)),
      ];
      await publish(distDir, bucket, { cdns });
    }
  } catch (error) {
    if (!(error instanceof PublishError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
