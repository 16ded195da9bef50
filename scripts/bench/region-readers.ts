// The regions bench's readers (regions.ts), in a process of their own: `node scripts/bench/region-readers.ts PROFILES
// CARDS PER_EDGE EDGE…` has PER_EDGE readers at each edge, each reading random pages one after another (a generated
// profile `bench-N` of PROFILES, one in ten a card of the comma-separated CARDS), until its standard input closes; then
// it prints, per edge, the requests made and the answers that were not 200 (JSON). Apart from the bench, whose own loop
// times each edit to the millisecond and carries the regions' links: two dozen readers beside it held that loop up to
// 16 ms at its 99th percentile, and every edit's time with it.
import { pathOf } from '../../src/lib/surface.ts';

const [profiles, cards, perEdge, ...edges] = process.argv.slice(2);
const cardIds = cards!.split(',');
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.resume();

const tally = edges.map(() => ({ requests: 0, errors: 0 }));
await Promise.all(
  edges.flatMap((edge, i) =>
    Array.from({ length: Number(perEdge) }, async () => {
      while (running) {
        const path =
          Math.random() < 0.1
            ? pathOf('getDigitalCard', { cardId: cardIds[Math.floor(Math.random() * cardIds.length)]! })
            : pathOf('getProfilePage', { page: `bench-${1 + Math.floor(Math.random() * Number(profiles))}` });
        tally[i]!.requests++;
        try {
          const res = await fetch(edge + path);
          await res.arrayBuffer();
          if (res.status !== 200) tally[i]!.errors++;
        } catch {
          tally[i]!.errors++;
        }
      }
    }),
  ),
);
console.log(JSON.stringify(tally));
