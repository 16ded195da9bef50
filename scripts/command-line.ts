// The flags of the operators' commands (node:util parseArgs), read one way (issue 62): `--help` prints the command's
// usage and exits 0; a flag it does not know, or one missing its value, is said in one line with the usage, exit 2,
// never Node's stack trace (`npm run edge -- --help` printed one).
import { parseArgs, type ParseArgsConfig } from 'node:util';

export function commandLine<T extends ParseArgsConfig>(usage: string, config: T, args = process.argv.slice(2)) {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs<T>({ ...config, args });
  } catch (err) {
    // Node's message, to its first sentence ("Unknown option '--x'"), without its advice on positionals.
    console.error(`${(err as Error).message.split(/\.\s/)[0]!.replace(/\.$/, '')}.\n${usage}`);
    process.exit(2);
  }
}
