// A worker of the Open Graph step: draws its share of the images and writes each to the build and to the cache.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { OgCard } from '../lib/og.ts';
import type { Result } from '../lib/result.ts';
import { drawOgImage } from '../lib/og-draw.ts';
import { linkOrCopy, writeEntry } from './build-cache.ts';

/** What a worker answers once its share is drawn. */
export type OgAnswer = Result<object>;

export interface OgJob {
  jobs: { card: OgCard; out: string; cached: string }[];
}

const { jobs } = workerData as OgJob;
try {
  for (const { card, out, cached } of jobs) {
    const png = await drawOgImage(card);
    mkdirSync(dirname(cached), { recursive: true });
    writeEntry(cached, png);
    linkOrCopy(cached, out);
  }
  parentPort?.postMessage({ ok: true } satisfies OgAnswer);
} catch (err) {
  parentPort?.postMessage({ ok: false, problem: (err as Error).stack ?? String(err) } satisfies OgAnswer);
}
