// One machine, one file (issue 61): the compose folder `npm run compose -- config` writes, played by podman-compose,
// each step the command docs/operations.md prints: PostgreSQL made on its first start, the schema migrated, the demo imported with the
// import CLI, two sidecars reading with the read-only role, the front and the edge in front of them, the purger telling
// the edge what an import changed. Readers see the site through the edge, and an edit within seconds.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv, projectRoot, testConfig } from '../helpers/env.ts';
import { guideBlock, runGuideBlock } from '../helpers/guide.ts';

const work = mkdtempSync(join(tmpdir(), 'bio-compose-'));
/** The compose folder: its name (this run's own) names the project, its containers, network and volume. */
const project = `bio-compose-${process.pid}`;
const folder = join(work, project);
const env = { ...process.env, CONTAINERS_CONF: join(projectRoot, 'deploy', 'image', 'containers.conf') };
let edge: string;

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
  // The guide's three lines, as printed: the folder written, played, the demo imported. Its address is the tests'
  // build's (the image's), its folder and port this run's own, and podman reads the project's settings.
  runGuideBlock(
    guideBlock(/npm run --silent compose -- config/),
    [
      ['https://bio.example', testConfig.baseUrl],
      ['/srv/bio-compose', folder],
      ['--publish 80', `--publish 127.0.0.1:${port}`],
    ],
    { ...cleanEnv(), CONTAINERS_CONF: env.CONTAINERS_CONF },
  );
}, 240_000);

afterAll(() => {
  spawnSync('podman-compose', ['down', '-v'], { cwd: folder, env });
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
    const page = await until('/p/layla', (status) => status === 200, 30);
    expect(page.status).toBe(200);
    expect(page.text).toContain('ليلى الأحمد');
    expect((await fetch(`${edge}/p/sam-rivera.md`)).headers.get('content-type')).toMatch(/^text\/markdown/);
    // No container holds a volume but the database's: `down -v` leaves nothing behind (the image's VOLUME made an
    // anonymous one for each of four services, which it left).
    const ids = spawnSync('podman', ['ps', '-aq', '--filter', `label=io.podman.compose.project=${project}`], {
      env,
      encoding: 'utf8',
    }).stdout.trim();
    const mounts = spawnSync('podman', ['inspect', '--format', '{{json .Mounts}}', ...ids.split('\n')], {
      env,
      encoding: 'utf8',
    })
      .stdout.trim()
      .split('\n')
      .flatMap((line) => JSON.parse(line) as { Type: string; Name?: string }[]);
    expect(mounts.filter((m) => m.Type === 'volume').map((m) => m.Name)).toEqual([`${project}_pgdata`]);
  }, 150_000);

  it('shows an edit through the edge within seconds: the purger tells it what the import changed', async () => {
    const cached = await until('/p/sam-rivera', (status) => status === 200, 30);
    expect(cached.text).not.toContain('Sam Rivera, edited');
    // Kept by the edge (once the purges of the demo's own import have passed: the purger follows the change log).
    let kept = '';
    for (let i = 0; i < 40 && !/hit/.test(kept); i++) {
      kept = (await fetch(`${edge}/p/sam-rivera`)).headers.get('cache-status') ?? '';
      if (!/hit/.test(kept)) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(kept).toMatch(/hit/);
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
    // The guide's import, as printed: this run's folder and network, the edit's folder, the tier's image.
    runGuideBlock(
      guideBlock(/import \/import\/bio\.json/),
      [
        ['/srv/imports', edits],
        ['/srv/bio-compose', folder],
        ['bio-compose_default', `${project}_default`],
        ['$IMAGE', inject('release').image],
        ['bio.json', 'edit.json'],
      ],
      env,
    );
    const edited = await until('/p/sam-rivera', (_status, text) => text.includes('Sam Rivera, edited'), 20);
    expect(edited.text).toContain('Sam Rivera, edited');
  }, 60_000);
});
