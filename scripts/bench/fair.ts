// `npm run bench -- --fair [--duration S]`: what an innocent reader on another address gets while one stranger (or
// five) does their worst (issue 46), in every deployment shape: one sidecar alone on SQLite and on a PostgreSQL
// standby, nginx over two sidecars, Varnish over one. For each shape the readers read alone first (the baseline, in
// the same run), then beside each attack of scripts/fair/attacks.ts from one address and from five, then alone again. Recorded: what
// the readers got of a cached live page, a live page nobody asked before, a static page, /health and an MCP call
// (answers by status, p50 and p99), the cached and static p99 as a multiple of the baseline's, and whether every
// sidecar lived. The goal (issue 60): cached and static pages 100% 200, slowed no more than 2× as much as the
// control's beside them in the same cell (`verdict`), live pages at least 99% 200, no crash. Beside the readers, as
// many read a control that does none of the attack's work (shapes.ts startControl), in the baselines and under each
// attack: what they get is the machine's own share.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../ensure-build.ts';
import { postgresBackend, sqliteBackend } from './data-tier.ts';
import { fmt } from './numbers.ts';
import { writeRecord } from './records.ts';
import { scratch, startBaselineProcess, UsageError, type BaselineRoutes } from './harness.ts';
import fc from 'fast-check';
import { ATTACKS } from '../fair/attacks.ts';
import { behaviourArbitrary, describeBehaviour } from '../fair/stranger.ts';
import type { ReadKind, ReadStats } from '../fair/reader.ts';
import { CHEAP_PATHS } from '../fair/cheap-paths.ts';
import { startControl, startShape, type Shape } from '../fair/shapes.ts';
import {
  attackerAddresses,
  controlAddresses,
  okShare,
  read,
  readerAddresses,
  underAttack,
  type Reading,
} from '../fair/under-attack.ts';

const PROFILES = 50_000;
const KINDS: ReadKind[] = ['cached', 'uncached', 'static', 'health', 'mcp', 'visitor'];
/**
 * Five readers, each on an address of their own: their cached and static pages give about five hundred answers in ten
 * seconds, a p99 that is the fifth-worst (one reader's would be its second-worst, one slow answer in a hundred deciding
 * the verdict). Only the first asks the costly kinds (reader.ts), so the baseline's load is one reader's and cheap
 * answers.
 */
const READERS = readerAddresses(5);
/**
 * How many times a cell's length each baseline reads: the bar is a p99 every cell of the shape is judged by, so it is
 * read on three times the answers (the fifteenth-worst of 1,500, not the fifth of 500). Two baselines of one shape
 * ten seconds long, with no attacker, gave a static p99 of 5.2 and 2.8 ms (the record of 2026-11-29), and the
 * stricter of them judged ten cells.
 */
const BASELINE_SPAN = 3;

interface Row {
  shape: string;
  attack: string;
  addresses: number;
  reading: Reading;
  /** What the control's readers got at the same time (shapes.ts startControl). */
  control: Reading;
  alive: boolean;
  /** The most heap any sidecar of the shape used while the attack ran, in MB (sampled five times a second). */
  peakHeapMb: number;
}

/** A shape's two baselines (before its attacks and after them), and the control's beside each. */
interface Baselines {
  before: Reading;
  after?: Reading;
  control: { before: Reading; after?: Reading };
}

const cell = (stats: ReadStats) =>
  `${stats.statuses['200'] ?? 0}/${stats.n}${Object.entries(stats.statuses)
    .filter(([status]) => status !== '200')
    .map(([status, n]) => ` (${n}×${status})`)
    .join('')}, ${fmt(stats.p50, 1)} / ${fmt(stats.p99, 1)}`;

/**
 * The bar a shape's attacks are judged against: of its two baselines (before its attacks and after), each kind's with
 * the lower p99. One baseline alone was at the machine's mercy: a moment of noise on a shared host made one shape's
 * cached p99 24 ms where it is 7-10, and every attack on that shape then passed.
 */
function bar({ before, after }: { before: Reading; after?: Reading }): Reading {
  if (!after) return before;
  return Object.fromEntries(
    KINDS.map((kind) => [kind, after[kind].p99 < before[kind].p99 ? after[kind] : before[kind]]),
  ) as Reading;
}

/** Whether a cached or a static p99 of `reading` is over twice `baseline`'s (a millisecond at least). */
const overTwice = (reading: Reading, baseline: Reading, kind: 'cached' | 'static') =>
  reading[kind].p99 > 2 * Math.max(baseline[kind].p99, 1);

/** A cached or static p99 of `reading` as a multiple of `baseline`'s (each a millisecond at least). */
const slowdown = (reading: Reading, baseline: Reading, kind: 'cached' | 'static') =>
  Math.max(reading[kind].p99, 1) / Math.max(baseline[kind].p99, 1);

/** The bars a cell is judged by: the shape's readers' baseline, and the control's beside it. */
interface Bars {
  reader: Reading;
  control: Reading;
}

/**
 * Whether a reading meets the goal (issue 60): the reader slowed down (its p99 against its own baseline) no more than
 * twice as much as the control's reader beside it, in the same cell at the same time (at least 2× its baseline is
 * allowed whatever the control did): what the service adds to what the machine does. The machine alone, on two
 * shared cores, missed 2× its own baseline in 30 of 34 cells that missed it. The control's p99 is not the bar itself:
 * nginx answering a few bytes of its own has a p99 of 1-2 ms at rest, a page the sidecar answers 3-6 ms, so a reader
 * with no attacker at all was over 2× the control's (the record counts the cells that meet that stricter bar too).
 */
function verdict(row: Pick<Row, 'reading' | 'control' | 'alive'>, bars: Bars): string {
  const problems: string[] = [];
  if (!row.alive) problems.push('a sidecar died');
  for (const kind of ['cached', 'static', 'health', 'mcp', 'visitor'] as const)
    if (okShare(row.reading[kind]) < 1) problems.push(`${kind} not all 200`);
  if (okShare(row.reading.uncached) < 0.99) problems.push('live pages under 99%');
  for (const kind of ['cached', 'static'] as const) {
    const machine = Math.max(1, slowdown(row.control, bars.control, kind));
    if (slowdown(row.reading, bars.reader, kind) > 2 * machine)
      problems.push(`${kind} slowed over 2× the control's ${fmt(machine, 1)}×`);
  }
  return problems.length === 0 ? 'met' : problems.join('; ');
}

/** Whether a reading's cached and static p99 are within 2× the control's in the same cell (the stricter bar). */
const withinTwiceTheControl = (row: Pick<Row, 'reading' | 'control'>) =>
  !overTwice(row.reading, row.control, 'cached') && !overTwice(row.reading, row.control, 'static');

/** The databases a shape reads: the generated SQLite file, and a PostgreSQL standby's variables when one is made. */
interface Databases {
  sqlite: string;
  postgres?: Record<string, string> | undefined;
}

/** The shapes, in the record's order: each deployed as docs/operations.md deploys it (shapes.ts), and one that is not. */
const SHAPES: { label: string; start: (db: Databases) => Promise<Shape>; postgres?: true; partOnly?: true }[] = [
  { label: 'one sidecar, SQLite', start: ({ sqlite }) => startShape('alone', { DATABASE_PATH: sqlite }) },
  { label: 'one sidecar, PostgreSQL standby', start: ({ postgres }) => startShape('alone', postgres!), postgres: true },
  { label: 'nginx over two sidecars, SQLite', start: ({ sqlite }) => startShape('front', { DATABASE_PATH: sqlite }) },
  { label: 'Varnish over one sidecar, SQLite', start: ({ sqlite }) => startShape('edge', { DATABASE_PATH: sqlite }) },
  // Not a deployment, and not in the record: asked for by name (`--shape bare`).
  {
    label: 'bare Fastify, the same bytes',
    start: ({ sqlite }) => startBare({ DATABASE_PATH: sqlite }),
    partOnly: true,
  },
];

/** A reading's kinds that were asked (those not asked have no answers), each its answers by status, p50 / p99 ms. */
const asked = (reading: Reading) =>
  KINDS.filter((kind) => reading[kind].n > 0)
    .map((kind) => `${kind} ${cell(reading[kind])}`)
    .join('; ');

/**
 * Not a deployment: a bare Fastify process (scripts/bench/baseline-server.ts) answering the readers' cheap paths
 * (scripts/fair/cheap-paths.ts) with the bytes and headers a sidecar over `env` answered them with, and nothing else
 * (a live page nobody asked before and /mcp are 404 there: ask it `--kinds cached,static,health,visitor`). What Node and
 * Fastify alone cost a reader beside the control, none of the sidecar's own work in it.
 */
async function startBare(env: Record<string, string>): Promise<Shape> {
  const sidecar = await startShape('alone', env);
  const routes: BaselineRoutes = {};
  try {
    for (const path of new Set(Object.values(CHEAP_PATHS))) {
      // As the readers ask it: no content coding (fetch would ask for one, and decode it).
      const answer = await fetch(`${sidecar.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      routes[path] = {
        type: answer.headers.get('content-type') ?? 'text/html',
        body: Buffer.from(await answer.arrayBuffer()),
        // What Node writes itself stays Node's to write.
        headers: Object.fromEntries(
          [...answer.headers].filter(
            ([name]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(name),
          ),
        ),
      };
    }
  } finally {
    await sidecar.stop();
  }
  const { url, child } = await startBaselineProcess(routes);
  return {
    url,
    sidecars: [],
    heapUsed: async () => [],
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      child.kill();
    },
  };
}

/** What to run beside the named attacks: `draws` strangers drawn from the space (stranger.ts), with `seed`. */
export interface StrangerDraws {
  draws: number;
  seed?: number | undefined;
  /**
   * Only the shapes whose label holds `shape` and the attacks named in `attack` (`--shape postgres --attack "render
   * crawl"`), several separated by commas and run in the record's order (`--attack "unread bodies,render crawl"`: what
   * one attack leaves the next): a cell looked at again. A part run prints its cells and writes no record (the record
   * is every cell).
   */
  shape?: string | undefined;
  attack?: string | undefined;
  /**
   * The kinds the readers ask, the control's too (`--kinds cached,static,health,visitor`): every kind unless named. With
   * `--attack none` (the baselines alone), what the kinds left out (a live page's render, an MCP call) add to a cheap
   * answer's p99 with no attacker at all.
   */
  kinds?: ReadKind[] | undefined;
}

export async function fairBench(seconds: number, stranger: StrangerDraws = { draws: 0 }): Promise<boolean> {
  const seed = stranger.seed ?? Date.now() % 1_000_000;
  // The same draws in every shape: a behaviour that one shape takes and another does not says which does better.
  const drawn = fc.sample(behaviourArbitrary(), { numRuns: stranger.draws, seed });
  const attacks = [
    ...ATTACKS.map((a) => ({ name: a.name, attack: a.name, addressesOf: [1, 5] })),
    ...drawn.map((b, i) => ({
      name: `drawn ${i + 1}: ${describeBehaviour(b)}`,
      attack: JSON.stringify(b),
      addressesOf: [b.addresses],
    })),
  ].filter((a) => {
    const named = stranger.attack?.split(',').map((name) => name.trim());
    return named === undefined || named.some((name) => a.name === name || a.name.startsWith(`${name}:`));
  });
  // `--attack none`: the baselines alone.
  if (attacks.length === 0 && stranger.attack !== 'none')
    throw new UsageError(
      `no attack is named ${stranger.attack} (the attacks: ${ATTACKS.map((a) => a.name).join(', ')}; ` +
        '"drawn N" with --stranger; none: the baselines alone)',
    );
  const kinds = stranger.kinds;
  const unknown = kinds?.filter((kind) => !KINDS.includes(kind));
  if (unknown?.length) throw new UsageError(`no kind is called ${unknown.join(', ')} (the kinds: ${KINDS.join(', ')})`);
  const shapes = SHAPES.filter(({ label, partOnly }) =>
    stranger.shape === undefined ? !partOnly : label.toLowerCase().includes(stranger.shape.toLowerCase()),
  );
  if (shapes.length === 0)
    throw new UsageError(`no shape is called ${stranger.shape} (the shapes: ${SHAPES.map((s) => s.label).join('; ')})`);
  const cheap = Object.keys(CHEAP_PATHS);
  if (shapes.some(({ partOnly }) => partOnly) && !(kinds && kinds.every((kind) => cheap.includes(kind))))
    throw new UsageError(`the bare shape answers the cheap kinds alone: add --kinds with any of ${cheap.join(',')}`);
  // The generated profiles, and the demo's beside them (the reader's cached page is /p/layla).
  const demo = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as unknown;
  const lite = await sqliteBackend(scratch).prepare(PROFILES, demo);
  const databases: Databases = { sqlite: lite.env.DATABASE_PATH! };
  await lite.close();
  const rows: Row[] = [];
  /** Each shape's baselines, before its attacks and after them, and the bar they make together (`bar`). */
  const baselines = new Map<string, Baselines>();
  // A PostgreSQL primary and standby only for a shape that reads one, stopped whatever happens after it started.
  const postgres = shapes.some((shape) => shape.postgres) ? await postgresBackend() : undefined;
  let pg: Awaited<ReturnType<NonNullable<typeof postgres>['prepare']>> | undefined;
  let control: Awaited<ReturnType<typeof startControl>> | undefined;
  try {
    pg = await postgres?.prepare(PROFILES, demo);
    databases.postgres = pg?.env;
    const controlUrl = (control = await startControl()).url;
    /** The shape's readers and the control's, side by side. */
    const readBoth = (url: string) =>
      Promise.all([
        read(url, seconds * BASELINE_SPAN, PROFILES, READERS, kinds),
        read(controlUrl, seconds * BASELINE_SPAN, PROFILES, controlAddresses(READERS.length), kinds),
      ]);
    for (const { label, start } of shapes) {
      const shape = await start(databases);
      try {
        for (let i = 0; i < 3; i++) await (await fetch(`${shape.url}/p/layla`)).arrayBuffer();
        const [baseline, controlBaseline] = await readBoth(shape.url);
        const measured: Baselines = { before: baseline, control: { before: controlBaseline } };
        baselines.set(label, measured);
        console.log(`${label}: baseline before ${asked(baseline)}`);
        for (const attack of attacks) {
          for (const addresses of attack.addressesOf) {
            let peak = 0;
            const sampler = setInterval(() => {
              shape.heapUsed().then(
                (heaps) => (peak = Math.max(peak, ...heaps)),
                () => undefined,
              );
            }, 200);
            const { reader, control: beside } = await underAttack({
              url: shape.url,
              attack: attack.attack,
              seconds,
              profiles: PROFILES,
              attackers: attackerAddresses(addresses),
              readers: READERS,
              control: controlUrl,
              kinds,
            }).finally(() => clearInterval(sampler));
            const row = {
              shape: label,
              attack: attack.name,
              addresses,
              reading: reader,
              control: beside!,
              alive: shape.alive(),
              peakHeapMb: peak / 1024 / 1024,
            };
            rows.push(row);
            console.log(
              `  ${attack.name} ×${addresses}: ${verdict(row, { reader: baseline, control: controlBaseline })} (against the baseline before) — ${asked(reader)}`,
            );
            // A sidecar that died is started again, so that the next attack meets the shape whole.
            if (!row.alive) break;
            // What the attack left (connections lingering, renders queued) drains before the next.
            await new Promise((resolve) => setTimeout(resolve, 2000));
          }
          if (!shape.alive()) break;
        }
        if (shape.alive()) {
          [measured.after, measured.control.after] = await readBoth(shape.url);
          console.log(`${label}: baseline after ${asked(measured.after)}`);
        }
      } finally {
        await shape.stop();
      }
    }
  } finally {
    await control?.stop();
    await pg?.close();
    await postgres?.stop();
  }

  /** The bars a shape's cells are judged by: each its two baselines together (`bar`). */
  const barsOf = (shape: string): Bars => {
    const measured = baselines.get(shape)!;
    return { reader: bar(measured), control: bar(measured.control) };
  };
  const judge = (row: Row) => verdict(row, barsOf(row.shape));
  const met = rows.filter((row) => judge(row) === 'met').length;
  /** Whether the control's reader beside `row` was over twice its own baseline too: the machine's share alone was. */
  const machineOver = (row: Row) => {
    const baseline = barsOf(row.shape).control;
    return overTwice(row.control, baseline, 'cached') || overTwice(row.control, baseline, 'static');
  };
  const notMet = rows.filter((row) => judge(row) !== 'met');
  const strictlyMet = rows.filter((row) => judge(row) === 'met' && withinTwiceTheControl(row)).length;
  /** The shapes' baselines (before the attacks) held to the stricter bar: no attacker at all. */
  const restingStrict = [...baselines.values()].filter(({ before, control: { before: beside } }) =>
    withinTwiceTheControl({ reading: before, control: beside }),
  ).length;
  const lines = [
    '# Fair to every client: what an innocent reader gets while a stranger does their worst',
    '',
    `\`npm run bench -- --fair --duration ${seconds}${drawn.length > 0 ? ` --stranger ${drawn.length} --seed ${seed}` : ''}\`, ${new Date().toISOString().slice(0, 10)}, on this machine kind ` +
      `(two cores: the attacker's process, at a lower priority, shares them with the server, as the reader does). ` +
      `${PROFILES.toLocaleString('en')} generated profiles. Each attack (scripts/fair/attacks.ts) runs ${seconds} s ` +
      `from one address (127.0.2.1) and from five; ${READERS.length} readers (scripts/fair/reader.ts), each on an ` +
      `address of their own (${READERS[0]}-${READERS.at(-1)!.split('.').at(-1)}), ask each kind in a loop of its own ` +
      'on a connection kept open, one request at a time, ten a second, and a new visitor once a second on a ' +
      'connection of their own (the cached page); the costly kinds (a new live page, and an MCP call every 0.6 ' +
      's) the first reader alone. Each loop starts at a moment of its own and pauses between half and one and ' +
      'a half of its period, so that readers do not ask in step. A reader gives up on an answer after ten seconds. ' +
      "Each cell is all readers' answers together. The baseline is the same readers with no attacker, in the same " +
      `run, ${seconds * BASELINE_SPAN} s long (three times a cell: its p99 is the bar of every cell of the shape): ` +
      'before the attacks on a shape and after them, each kind judged against the one with the lower p99 (the ' +
      'stricter bar; one baseline alone was at the mercy of a moment of noise on the machine).',
    '',
    'The shapes are deployed as docs/operations.md deploys them: each sidecar with its limits (sidecar/admission/limits.ts, ' +
      "their defaults); nginx over two sidecars with the front's own limits and its firewall (`npm run front -- " +
      'firewall`: connections, new connections, small data segments and bytes per client address, so that a drip ' +
      'arrives in larger pieces and a body nginx refuses is not read at loopback speed); Varnish over one sidecar as `npm run edge` runs it.',
    '',
    `Beside them, as many readers (${controlAddresses(1)[0]}-${READERS.length}) read a control at the same time, ` +
      'in the baselines and under each attack: nginx answering every request `200` with a few bytes of its own ' +
      "(scripts/fair/shapes.ts startControl), which does none of the attack's work. What they get is the machine's " +
      "own share: the attacker's sending and the shape's work on the cores they share. Where the control's cached " +
      'or static p99 is over 2× its own baseline too, no server on this machine would have met the goal in that cell.',
    '',
    'The goal (issue 60): cached and static pages, /health, MCP calls and new visitors 100% `200`; live pages nobody ' +
      'asked before at least 99% `200`; no sidecar dies; and what the service adds to what the machine does: the ' +
      "reader's cached and static p99 slowed (against its own baseline) no more than 2× as much as the control's " +
      'reader slowed beside it in the same cell (and at least 2× its baseline allowed whatever the control did). The ' +
      "control's p99 itself is not the bar: nginx answering a few bytes of its own is faster than any page, and " +
      `${baselines.size - restingStrict} of ${baselines.size} shapes' readers were over 2× the control's p99 with no ` +
      'attacker at all.',
    '',
    `**${met} of ${rows.length} runs met it** (${strictlyMet} of them with the reader's cached and static p99 within ` +
      `2× the control's own too). Of the ${notMet.length} that did not, ${notMet.filter(machineOver).length} ` +
      "had the control's reader over 2× its own baseline (the machine's share). Each cell: answers `200` of all (others by " +
      'status), p50 / p99 in ms.',
    '',
    '## The attacks',
    '',
    ...ATTACKS.map((a) => `- **${a.name}**: ${a.description}.`),
    ...(drawn.length > 0
      ? [
          '',
          `And ${drawn.length} strangers drawn at random from the space of scripts/fair/stranger.ts (\`--stranger ` +
            `${drawn.length} --seed ${seed}\` draws them again), the same in every shape, each from the addresses it drew.`,
        ]
      : []),
    '',
  ];
  /** Cached and static p99 of `reading` as multiples of `baseline`'s (a millisecond at least). */
  const ratios = (reading: Reading, baseline: Reading) =>
    (['cached', 'static'] as const)
      .map((kind) => fmt(reading[kind].p99 / Math.max(baseline[kind].p99, 1), 1))
      .join(', ');
  for (const { label } of shapes) {
    const measured = baselines.get(label);
    if (!measured) continue;
    const baseline = bar(measured);
    const controlBaseline = bar(measured.control);
    const none = (when: string, reading: Reading, controlReading: Reading) =>
      `| none (${when}) | 0 | ${KINDS.map((k) => cell(reading[k])).join(' | ')} | ${ratios(reading, baseline)} | ` +
      `${cell(controlReading.cached)}; ${ratios(controlReading, controlBaseline)} | | |`;
    lines.push(`## ${label}`, '');
    lines.push(
      '| Attack | Addresses | Cached page | Live page, new | Static page | /health | MCP call | New visitor | Cached p99 ×, static p99 × | Control: cached; cached p99 ×, static p99 × | Peak heap, MB | Verdict |',
      '|---|---:|---|---|---|---|---|---|---|---|---:|---|',
      none('baseline, before', measured.before, measured.control.before),
      ...(measured.after && measured.control.after
        ? [none('baseline, after', measured.after, measured.control.after)]
        : []),
    );
    for (const row of rows.filter((r) => r.shape === label)) {
      const judged = judge(row);
      lines.push(
        `| ${row.attack} | ${row.addresses} | ${KINDS.map((k) => cell(row.reading[k])).join(' | ')} | ` +
          `${ratios(row.reading, baseline)} | ${cell(row.control.cached)}; ${ratios(row.control, controlBaseline)} | ` +
          `${fmt(row.peakHeapMb, 0)} | ` +
          `${judged}${judged !== 'met' && machineOver(row) ? ' (the control over 2× its own baseline)' : ''} |`,
      );
    }
    lines.push('');
  }
  // The record is every cell with every kind asked: a run of some shapes, attacks or kinds is printed alone.
  if (stranger.shape === undefined && stranger.attack === undefined && kinds === undefined)
    writeRecord('fair.md', lines.join('\n'));
  else {
    // Each shape's baselines held to the stricter bar: each kind the readers asked, its p99 against the control's
    // readers' p99 of the same kind, with no attacker at all.
    for (const [shape, { before, after, control: beside }] of baselines)
      for (const [when, reading, controlReading] of [
        ['before', before, beside.before],
        ['after', after, beside.after],
      ] as const)
        if (reading && controlReading)
          console.log(
            `${shape}, baseline ${when}, p99 against the control's: ` +
              KINDS.filter((kind) => reading[kind].n > 0)
                .map(
                  (kind) =>
                    `${kind} ${fmt(reading[kind].p99, 1)} / ${fmt(controlReading[kind].p99, 1)} ms ` +
                    `(${fmt(reading[kind].p99 / controlReading[kind].p99, 1)}×)`,
                )
                .join('; '),
          );
    // What the record's table would say of each cell: judged against both of its shape's baselines (the line printed
    // as a cell ended could know only the one before), with the multiples the verdict compares.
    for (const row of rows) {
      const bars = barsOf(row.shape);
      console.log(
        `${row.shape}, ${row.attack} ×${row.addresses}: ${judge(row)} — cached p99 ×, static p99 × ` +
          `${ratios(row.reading, bars.reader)}; the control's ${ratios(row.control, bars.control)}`,
      );
    }
    console.log('A part run: no record written.');
  }
  return rows.every((row) => row.alive);
}
