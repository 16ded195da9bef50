// `npm run bench [-- --MODE] [--duration S]`: the benchmarks, one module a mode, each measuring against a baseline in
// the same run and writing its record in docs/benchmarks/. Without a mode, the overview (overview.ts, docs/benchmarks/overview.md).
//   --soak         load across every route; fails on any error (CI runs five seconds)        soak.ts
//   --mcp          tools/call on both protocol generations against a bare route              mcp.ts
//   --compression  the cached rows in each content coding                                    compression.ts
//   --edge         live pages through Varnish and the purger, on both backends              edge.ts
//   --lighthouse   Lighthouse (mobile) in Debian's Chromium on every page kind               lighthouse.ts
//   --build        cold and incremental builds against Hugo [--articles N] [--baseline REV]  build.ts
//   --publish      a first publish and an edit's, to a folder and an S3 server [--articles N]  publish.ts
//   --data-tier    both database backends [--million]                                        data-tier.ts
//   --fuzz         the project's fuzzer, long, from a new seed [--runs N] [--seed N]         fuzz.ts
//   --worst        the costliest request of every route and method, and forty clients of them  worst.ts
//                  [--stalls: the hostile clients alone, rewriting that section of its record]
//   --regions      three regions on loopback: an edit at every edge, a region cut off [--duration S]  regions.ts
//   --hot-path     cached answers against an earlier revision, side by side [--baseline REV]    hot-path.ts
//   --images       an owner's image and a link-preview picture: made, and served against a bare route  images.ts
//   --fair         what an innocent reader gets while one stranger (or five) attacks, in every shape  fair.ts
//                  (--stranger N: N more attackers drawn at random from the stranger's space, --seed S;
//                  --shape TEXT, --attack NAME[,NAME…]: those cells alone, in the record's order, printed, no record;
//                  --attack none: the baselines alone; --kinds KIND[,KIND…]: the readers ask those kinds alone)
//   --store        the data tier against an earlier revision: cold reads, a sitemap part, an import [--baseline REV]  store.ts
import { parseArgs } from 'node:util';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync } from '../ensure-build.ts';
import { buildMode } from './build.ts';
import { publishMode } from './publish.ts';
import { compressionBench } from './compression.ts';
import { dataTierBench } from './data-tier.ts';
import { edgeMode } from './edge.ts';
import { fairBench } from './fair.ts';
import type { ReadKind } from '../fair/reader.ts';
import { storeBench } from './store.ts';
import { fuzzBench } from './fuzz.ts';
import { hotPathBench } from './hot-path.ts';
import { imagesBench } from './images.ts';
import { baseEnv, scratch, UsageError } from './harness.ts';
import { lighthouseMode } from './lighthouse.ts';
import { mcpBench } from './mcp.ts';
import { overviewBench } from './overview.ts';
import { regionsBench } from './regions.ts';
import { soakBench } from './soak.ts';
import { stallsOnlyBench, worstBench } from './worst.ts';

const { values: flags } = parseArgs({
  options: {
    soak: { type: 'boolean', default: false },
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'data-tier': { type: 'boolean', default: false },
    million: { type: 'boolean', default: false },
    mcp: { type: 'boolean', default: false },
    compression: { type: 'boolean', default: false },
    lighthouse: { type: 'boolean', default: false },
    edge: { type: 'boolean', default: false },
    build: { type: 'boolean', default: false },
    publish: { type: 'boolean', default: false },
    articles: { type: 'string' },
    fuzz: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seed: { type: 'string' },
    worst: { type: 'boolean', default: false },
    stalls: { type: 'boolean', default: false },
    regions: { type: 'boolean', default: false },
    'hot-path': { type: 'boolean', default: false },
    images: { type: 'boolean', default: false },
    fair: { type: 'boolean', default: false },
    stranger: { type: 'string' },
    shape: { type: 'string' },
    attack: { type: 'string' },
    kinds: { type: 'string' },
    store: { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
});
const seconds = Number(flags.duration ?? (flags.soak ? 30 : flags.quick ? 3 : 10));

const modes: [boolean | undefined, () => Promise<boolean | void>][] = [
  [flags.soak, () => soakBench(seconds)],
  [flags.mcp, () => mcpBench(seconds)],
  [flags.images, () => imagesBench(seconds)],
  [flags.compression, () => compressionBench(seconds)],
  [flags.edge, () => edgeMode(seconds)],
  [flags.lighthouse, () => lighthouseMode()],
  [flags.build, () => buildMode(flags.articles, flags.baseline)],
  [flags.publish, () => publishMode(flags.articles)],
  [
    flags['data-tier'],
    async () => {
      ensureBuildSync(loadConfig({}), baseEnv({}));
      await dataTierBench({ seconds, sizes: flags.million ? [2000, 100_000, 1_000_000] : [2000, 100_000], scratch });
    },
  ],
  [
    flags.fuzz,
    () =>
      fuzzBench({
        runs: flags.runs ? Number(flags.runs) : undefined,
        seed: flags.seed ? Number(flags.seed) : undefined,
      }),
  ],
  [
    flags.worst,
    () =>
      (flags.stalls ? stallsOnlyBench : worstBench)({
        seconds: flags.duration ? seconds : undefined,
        million: !flags.quick,
      }),
  ],
  [flags.regions, () => regionsBench(flags.duration ? seconds : 60)],
  [flags['hot-path'], () => hotPathBench({ seconds: flags.duration ? seconds : 5, baseline: flags.baseline })],
  [flags.store, () => storeBench({ baseline: flags.baseline })],
  [
    flags.fair,
    () => {
      ensureBuildSync(loadConfig({}), baseEnv({}));
      return fairBench(flags.duration ? seconds : 10, {
        draws: flags.stranger ? Number(flags.stranger) : 0,
        seed: flags.seed ? Number(flags.seed) : undefined,
        shape: flags.shape,
        attack: flags.attack,
        kinds: flags.kinds?.split(',').map((kind) => kind.trim() as ReadKind),
      });
    },
  ],
];
const mode = modes.find(([chosen]) => chosen)?.[1] ?? (() => overviewBench(seconds, flags.quick));
const outcome = await mode().catch((error: unknown) => {
  if (!(error instanceof UsageError)) throw error;
  console.error(`npm run bench: ${error.message}`);
  process.exit(2);
});
process.exit(outcome === false ? 1 : 0);
