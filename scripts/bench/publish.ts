// `npm run bench -- --publish [--articles N]`: publishing the blog at scale (docs/benchmarks/publish.md). A copy of
// the project with N generated articles a language (2,000 unless told; build.ts), built, then built again after one
// article's text changed; each build published in turn (scripts/publish.ts) to a folder and to an S3-compatible
// server on loopback (s3rver, through the AWS SDK, as the tests do): the first publish (an empty bucket) and the
// edit's, each with its time, the requests the SDK sent and the bytes it uploaded, and the URLs to invalidate.
import { cpSync, mkdtempSync, statSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { folderBucket, publish, s3Bucket, type Bucket } from '../publish.ts';
import { editArticle, scaledProject, timedBuild } from './build.ts';
import { scratch } from './harness.ts';
import { fmt } from './numbers.ts';
import { writeRecord } from './records.ts';

interface Run {
  target: string;
  publish: 'first' | 'edit';
  seconds: number;
  requests: number;
  uploadedBytes: number;
  uploaded: number;
  deleted: number;
  invalidated: number;
}

/** A bucket that counts what is put through it (the files' bytes: what goes over the wire, less the headers). */
function counted(bucket: Bucket, count: { bytes: number }): Bucket {
  return {
    ...bucket,
    put: (key, body, headers) => {
      count.bytes += Buffer.isBuffer(body) ? body.length : statSync(body.file).size;
      return bucket.put(key, body, headers);
    },
  };
}

export async function publishMode(articles: string | undefined): Promise<void> {
  const perLang = Number(articles ?? 2000);
  console.log(`Generating and building ${fmt(perLang)} articles a language…`);
  const dir = scaledProject(perLang, scratch);
  const firstBuild = timedBuild(dir);
  const first = join(dir, 'first');
  cpSync(join(dir, 'dist'), first, { recursive: true });
  editArticle(dir, 7);
  timedBuild(dir);
  const second = join(dir, 'dist');
  console.log(`built in ${firstBuild.seconds.toFixed(1)} s; publishing…`);

  const storage = mkdtempSync(join(scratch, 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: storage,
    configureBuckets: [{ name: 'site' }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let requests = 0;
  const client = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  // Every HTTP request the SDK sends, retries included.
  client.middlewareStack.add((next) => (args) => (requests++, next(args)), { step: 'finalizeRequest' });

  const targets: [string, Bucket, () => number][] = [
    ['folder', folderBucket(mkdtempSync(join(scratch, 'bucket-'))), () => 0],
    ['S3-compatible server (s3rver, AWS SDK)', s3Bucket('site', { client }), () => requests],
  ];
  const runs: Run[] = [];
  for (const [target, bucket, requestsSoFar] of targets) {
    for (const [which, build] of [
      ['first', first],
      ['edit', second],
    ] as const) {
      const count = { bytes: 0 };
      const before = requestsSoFar();
      const started = performance.now();
      const plan = await publish(build, counted(bucket, count), { log: () => undefined });
      const run: Run = {
        target,
        publish: which,
        seconds: (performance.now() - started) / 1000,
        requests: requestsSoFar() - before,
        uploadedBytes: count.bytes,
        uploaded: plan.uploadAssets.length + plan.uploadPages.length + 1,
        deleted: plan.deletePages.length + plan.deleteAssets.length,
        invalidated: plan.invalidate.length,
      };
      runs.push(run);
      console.log(JSON.stringify(run));
    }
  }
  await server.close();

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const lines = [
    '# Publishing the blog at scale',
    '',
    `Produced by \`npm run bench -- --publish${articles ? ` --articles ${articles}` : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine}. ` +
      `A copy of the project with ${fmt(perLang)} generated articles a language, built, then built again after one ` +
      "article's text changed; each build published in turn by `scripts/publish.ts` to a folder and to s3rver on " +
      'loopback through the AWS SDK (sixteen uploads at a time). **Requests** are the HTTP requests the SDK sent ' +
      '(reading the manifest, one PUT an object, one DELETE a thousand keys, retries included); **uploaded** the ' +
      "objects put and the files' bytes.",
    '',
    '| Target | Publish | Time | Requests | Objects uploaded | Bytes uploaded | Deleted | URLs invalidated |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.target} | ${r.publish === 'first' ? 'first (empty bucket)' : "one article's text edited"} | ${r.seconds.toFixed(1)} s | ${r.target === 'folder' ? '—' : fmt(r.requests)} | ${fmt(r.uploaded)} | ${(r.uploadedBytes / 2 ** 20).toFixed(1)} MB | ${fmt(r.deleted)} | ${fmt(r.invalidated)} |`,
    ),
    '',
  ];
  writeRecord('publish.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
}
