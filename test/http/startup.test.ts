// The sidecar as a process: it refuses a bad configuration or a build made for another origin, and prints its URL.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const server = join(projectRoot, 'sidecar/server.ts');

describe('sidecar start-up', () => {
  it('stops with a clear message naming each bad variable', () => {
    const r = spawnSync(process.execPath, [server], {
      env: cleanEnv({ PORT: '99999', CONTACT_EMAIL: 'x' }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT must be a whole number');
    expect(r.stderr).toContain('CONTACT_EMAIL must be an e-mail address');
  });

  it('refuses to serve a build made for another BASE_URL, and says how to rebuild', () => {
    const r = spawnSync(process.execPath, [server], {
      env: cleanEnv({ BASE_URL: 'https://links.example.org' }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the build was made for baseUrl "http://localhost:8080"');
    expect(r.stderr).toContain('BASE_URL=https://links.example.org npm run build');
  });

  it('serves the build made for its configuration, prints the URL and exits 0 on SIGTERM', async () => {
    // The build is for http://localhost:8080 whatever port we listen on: BASE_URL is the public origin.
    const { child, port, output } = await spawnTestSidecar({ BASE_URL: 'http://localhost:8080' });
    expect(output()).toContain(`Serving http://localhost:8080 on http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
