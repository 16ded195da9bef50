// One machine, one file (issue 61): the compose folder `npm run compose -- config` writes, played by podman-compose as
// docs/operations.md gives it: PostgreSQL made on its first start, the schema migrated, the demo imported with the
// import CLI, two sidecars reading with the read-only role, the front and the edge in front of them, the purger telling
// the edge what an import changed. Readers see the site through the edge, and an edit within seconds.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

const work = mkdtempSync(join(tmpdir(), 'bio-compose-'));
const folder = join(work, 'compose');
/** A project name of this run's own: its containers, network and volume are named after it. */
const project = `biocompose${process.pid}`;
const env = { ...process.env, CONTAINERS_CONF: join(projectRoot, 'deploy', 'image', 'containers.conf') };
let edge: string;

/** podman-compose in the compose folder, as an operator runs it there; its output when it fails. */
function compose(args: string[]) {
  const run = spawnSync('podman-compose', ['-p', project, ...args], { cwd: folder, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`podman-compose ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/** Asks `path` of the edge until `ok` holds of the answer, for up to `seconds`; the last answer. */
async function until(path: string, ok: (status: number, text: string) => boolean, seconds = 60) {
  let last = { status: 0, text: '' };
  for (let i = 0; i < seconds * 4; i++) {
    const answer = await fetch(edge + path).catch(() => undefined);
    if (answer) last = { status: answer.status, text: await answer.text() };
    if (answer && ok(last.status, last.text)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

beforeAll(async () => {
  const port = await freePort();
  edge = `http://127.0.0.1:${port}`;
  // The guide's command, with the tier's image and the edge's port on loopback.
  const made = spawnSync(
    'npm',
    [
      'run',
      '--silent',
      'compose',
      '--',
      'config',
      '--out',
      folder,
      '--image',
      inject('release').image,
      '--publish',
      `127.0.0.1:${port}`,
    ],
    { cwd: projectRoot, env: cleanEnv(), encoding: 'utf8' },
  );
  expect(made.status, made.stderr).toBe(0);
  compose(['up', '-d']);
}, 180_000);

afterAll(() => {
  spawnSync('podman-compose', ['-p', project, 'down', '-v'], { cwd: folder, env });
  spawnSync('podman', ['network', 'rm', '--force', `${project}_default`], { env });
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the compose file, played by podman-compose', () => {
  it('keeps the database passwords in files only its owner reads', () => {
    for (const name of ['postgres.env', 'superuser.env', 'reader.env'])
      expect(statSync(join(folder, name)).mode & 0o777, name).toBe(0o600);
    const compose = readFileSync(join(folder, 'compose.yaml'), 'utf8');
    for (const line of readFileSync(join(folder, 'postgres.env'), 'utf8').trim().split('\n'))
      expect(compose).not.toContain(line.split('=')[1]);
  });

  it('serves the site through the edge once the schema is made, and the demo once imported', async () => {
    // The database made and migrated at the first `up`: /health says the sidecars read it.
    expect((await until('/health', (status) => status === 200, 90)).status).toBe(200);
    expect((await fetch(`${edge}/`)).status).toBe(200);
    expect((await fetch(`${edge}/ar/blog`)).status).toBe(200);
    compose(['run', '--rm', '--no-deps', 'migrate', 'seed-demo']);
    const page = await until('/p/layla', (status) => status === 200, 30);
    expect(page.status).toBe(200);
    expect(page.text).toContain('ليلى الأحمد');
    expect((await fetch(`${edge}/p/sam-rivera.md`)).headers.get('content-type')).toMatch(/^text\/markdown/);
  }, 150_000);

  it('shows an edit through the edge within seconds: the purger tells it what the import changed', async () => {
    const cached = await until('/p/sam-rivera', (status) => status === 200, 30);
    expect(cached.text).not.toContain('Sam Rivera, edited');
    expect((await fetch(`${edge}/p/sam-rivera`)).headers.get('cache-status')).toMatch(/hit/);
    // An edit imported as the guide says: the import CLI of the image, on the compose network, a file mounted.
    const edits = join(work, 'edits');
    mkdirSync(edits);
    const demo = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as {
      profiles: { slug: string; name: string; avatarUrl?: string }[];
    };
    const { avatarUrl: _picture, ...sam } = demo.profiles.find((p) => p.slug === 'sam-rivera')!;
    writeFileSync(join(edits, 'edit.json'), JSON.stringify({ profiles: [{ ...sam, name: 'Sam Rivera, edited' }] }));
    chmodSync(work, 0o755);
    chmodSync(edits, 0o755);
    chmodSync(join(edits, 'edit.json'), 0o644);
    const imported = spawnSync(
      'podman',
      [
        'run',
        '--rm',
        '--network',
        `${project}_default`,
        '-v',
        `${edits}:/import:ro`,
        '--env-file',
        join(folder, 'superuser.env'),
        '-e',
        'DATABASE_URL=postgres://postgres@postgres/bio',
        '--entrypoint',
        '/opt/bio/bin/db',
        inject('release').image,
        'import',
        '/import/edit.json',
      ],
      { env, encoding: 'utf8' },
    );
    expect(imported.status, imported.stderr).toBe(0);
    const edited = await until('/p/sam-rivera', (_status, text) => text.includes('Sam Rivera, edited'), 20);
    expect(edited.text).toContain('Sam Rivera, edited');
  }, 60_000);
});
