// The sidecar as a process: it refuses a bad configuration or a build made for another origin, and prints its URL.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

const server = join(projectRoot, 'sidecar/server.ts');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('sidecar start-up', () => {
  it('stops with a clear message naming each bad variable', () => {
    const r = spawnSync(process.execPath, [server], { env: cleanEnv({ PORT: '99999', CONTACT_EMAIL: 'x' }), encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT must be a whole number');
    expect(r.stderr).toContain('CONTACT_EMAIL must be an e-mail address');
  });

  it('refuses to serve a build made for another BASE_URL, and says how to rebuild', () => {
    const r = spawnSync(process.execPath, [server], { env: cleanEnv({ BASE_URL: 'https://links.example.org' }), encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the build was made for baseUrl "http://localhost:8080"');
    expect(r.stderr).toContain('BASE_URL=https://links.example.org npm run build');
  });

  it('serves the build made for its configuration, prints the URL and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    // The build is for http://localhost:8080 whatever port we listen on: BASE_URL is the public origin.
    const child = spawn(process.execPath, [server], { env: cleanEnv({ PORT: String(port), BASE_URL: 'http://localhost:8080', LOG_LEVEL: 'warn' }) });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('Serving') && resolve());
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    expect(out).toContain(`Serving http://localhost:8080 on http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
