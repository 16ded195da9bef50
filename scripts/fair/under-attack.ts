// An attack and an innocent reader side by side, each in a process of its own, against one URL: what the reader gets
// is the measure of fairness (issue 46), not what /health says. The tests and `npm run bench -- --fair` run it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../ensure-build.ts';
import type { AttackCounts } from './attacks.ts';
import type { ReadKind, ReadStats } from './reader.ts';

export type Reading = Record<ReadKind, ReadStats>;

/** The readers' addresses: `n` loopback hosts no attack sends from. */
export const readerAddresses = (n: number) => Array.from({ length: n }, (_, i) => `127.0.3.${i + 1}`);
/** The control's readers' addresses (shapes.ts startControl): `n` loopback hosts of their own. */
export const controlAddresses = (n: number) => Array.from({ length: n }, (_, i) => `127.0.4.${i + 1}`);
/** The attacks' addresses: `n` loopback hosts of their own. */
export const attackerAddresses = (n: number) => Array.from({ length: n }, (_, i) => `127.0.2.${i + 1}`);

function run(args: string[], nice: number): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'nice',
      ['-n', String(nice), process.execPath, ...args],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => (error ? reject(new Error(`${args[0]} failed: ${error.message}\n${err}`)) : resolve(out)),
    ),
  );
}

/**
 * What readers on `addresses` (one unless told) read from `url` for `seconds` with no attack: every kind, or those
 * `kinds` names (the others have no answers).
 */
export async function read(
  url: string,
  seconds: number,
  profiles: number,
  addresses = readerAddresses(1),
  kinds?: readonly ReadKind[],
) {
  const only = kinds ? [`kinds=${kinds.join(',')}`] : [];
  return JSON.parse(
    await run(
      [join(projectRoot, 'scripts/fair/reader.ts'), url, String(seconds), String(profiles), ...only, ...addresses],
      0,
    ),
  ) as Reading;
}

/**
 * `attack` from `attackers` addresses against `url` for `seconds`, and the readers beside it for the same time, from
 * its first second on (the attack is under way by then). The attacker runs at a lower priority: on the machine it
 * shares with the server it stands for clients elsewhere, whose CPU is not the server's.
 */
export async function underAttack(options: {
  url: string;
  attack: string;
  seconds: number;
  profiles: number;
  attackers: string[];
  /** The readers' addresses: one unless told. */
  readers?: string[];
  /** A control (shapes.ts startControl) read beside them, from controlAddresses as many as the readers. */
  control?: string;
  /** The kinds the readers (and the control's) ask: every one unless named. */
  kinds?: readonly ReadKind[] | undefined;
}): Promise<{ reader: Reading; attack: AttackCounts; control?: Reading }> {
  const { url, attack, seconds, profiles, attackers, readers, control, kinds } = options;
  const attacking = run(
    [join(projectRoot, 'scripts/fair/attacker.ts'), attack, url, String(seconds + 1), String(profiles), ...attackers],
    10,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const [reader, counts, controlReading] = await Promise.all([
    read(url, seconds, profiles, readers, kinds),
    attacking,
    control === undefined ? undefined : read(control, seconds, profiles, controlAddresses(readers?.length ?? 1), kinds),
  ]);
  return {
    reader,
    attack: JSON.parse(counts) as AttackCounts,
    ...(controlReading ? { control: controlReading } : {}),
  };
}

/** The share of `stats`' answers that were 200 (1 with none). */
export const okShare = (stats: ReadStats) => (stats.n === 0 ? 1 : (stats.statuses['200'] ?? 0) / stats.n);
