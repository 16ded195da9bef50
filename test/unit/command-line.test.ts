// The operators' commands read their flags one way (issue 62: `npm run edge -- --help` printed Node's stack trace):
// `--help` is the usage and exit 0; a flag a command does not know is one line and the usage, exit 2.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

const COMMANDS = ['edge', 'front', 'kube', 'compose', 'release', 'image', 'publish:site', 'switch-build'];

const run = (command: string, flag: string) =>
  spawnSync('npm', ['run', '--silent', command, '--', flag], { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 });

describe("the operators' commands", () => {
  it.each(COMMANDS)('npm run %s -- --help prints its usage; an unknown flag is one line and the usage', (command) => {
    const help = run(command, '--help');
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: (DIST_DIR=\S+ )?npm run (--silent )?\S+ --/i);
    const unknown = run(command, '--no-such-flag');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([
      "Unknown option '--no-such-flag'.",
      expect.stringMatching(/^usage: /i),
    ]);
  });
});

describe("the front's trusted proxies", () => {
  it.each(['config', 'firewall'])(
    'npm run front -- %s refuses a --trust-proxy that is not an address or a CIDR, before writing anything',
    (form) => {
      const r = spawnSync('npm', ['run', '--silent', 'front', '--', form, '--trust-proxy', 'proxy.example'], {
        cwd: projectRoot,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toBe('--trust-proxy must be an IP address or a CIDR (got "proxy.example")');
    },
  );
});

describe("the front's shares", () => {
  // A reviewer raised the firewall's byte rate to a gigabyte a second and was told it must be "at least 1".
  it.each(['0', '1000000000', 'abc'])(
    'npm run front -- firewall refuses --client-bytes-rate %s, naming the range',
    (value) => {
      const r = spawnSync('npm', ['run', '--silent', 'front', '--', 'firewall', '--client-bytes-rate', value], {
        cwd: projectRoot,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toBe(`--client-bytes-rate must be a whole number from 1 to 999999999 (got "${value}")`);
    },
  );

  it('npm run front -- --help names every flag the firewall takes', () => {
    const help = spawnSync('npm', ['run', '--silent', 'front', '--', '--help'], { cwd: projectRoot, encoding: 'utf8' });
    for (const flag of ['--client-small-segment-rate', '--client-bytes-rate', '--client-bytes-burst'])
      expect(help.stdout).toContain(flag);
  });
});
