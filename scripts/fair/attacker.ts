// One attack in a process of its own: `node scripts/fair/attacker.ts NAME URL SECONDS PROFILES ADDRESS…` runs the
// attack named (attacks.ts) from those loopback addresses and prints what its clients saw as JSON.
import { attackNamed } from './attacks.ts';

const [name, url, seconds, profiles, ...addresses] = process.argv.slice(2);
const counts = await attackNamed(name!).run({
  url: new URL(url!),
  end: Date.now() + Number(seconds) * 1000,
  profiles: Number(profiles),
  addresses,
});
console.log(JSON.stringify(counts));
process.exit(0);
