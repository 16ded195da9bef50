// The editors' preview (`npm run dev`), in a scratch copy of the project: Astro's dev server shows an article as it
// is edited, and the live pages from the local database, as the sidecar renders them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv } from '../helpers/env.ts';
import { projectCopy } from '../helpers/temporary.ts';

let dir: string;
let dev: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  dir = projectCopy(mkdtempSync(join(tmpdir(), 'preview-')));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // As an editor's shell runs it: not with vitest's own variables, which Vite reads as "inside a test runner".
  const env = Object.fromEntries(
    Object.entries(cleanEnv({ PORT: String(port), DATABASE_PATH: await createDatabase() })).filter(
      ([name]) => !/^(VITEST|VITE_|NODE_ENV$|TEST$)/.test(name),
    ),
  );
  // The command docs/editing.md prints (`PORT=8090 npm run dev`), the port one that is free.
  dev = spawn('npm', ['run', 'dev'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  dev.stdout?.on('data', (d: Buffer) => (output += d));
  dev.stderr?.on('data', (d: Buffer) => (output += d));
  for (let i = 0; i < 300; i++) {
    if (dev.exitCode !== null) throw new Error(`npm run dev exited: ${output}`);
    try {
      if ((await fetch(url + '/')).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the preview did not answer: ${output}`);
}, 60_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once('exit', resolve));
    dev.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const text = async (path: string) => {
  const res = await fetch(url + path);
  return { status: res.status, body: await res.text() };
};

describe('npm run dev', () => {
  it('shows articles in both languages, and shows an edit on the next request', async () => {
    expect((await text('/ar/blog/bitaqat-qr-am-nfc')).status).toBe(200);
    const file = join(dir, 'content/blog/en/qr-or-nfc-business-card.md');
    expect((await text('/en/blog/qr-or-nfc-business-card')).body).not.toContain('Edited in the preview');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('\n\n', '\n\nEdited in the preview, as an editor types.\n\n'),
    );
    let body = '';
    for (let i = 0; i < 100 && !body.includes('Edited in the preview'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = (await text('/en/blog/qr-or-nfc-business-card')).body;
    }
    expect(body).toContain('Edited in the preview, as an editor types.');
  });

  it('renders live profiles and cards from the local database, and 404s what it does not hold', async () => {
    const profile = await text('/p/layla');
    expect(profile.status).toBe(200);
    expect(profile.body).toContain('ليلى الأحمد');
    expect(profile.body).toContain('dir="rtl"');
    const card = await text('/c/k7f2q9');
    expect(card.status).toBe(200);
    expect(card.body).toContain('/c/k7f2q9/contact-qr.svg');
    expect((await text('/p/nobody-at-all')).status).toBe(404);
  });

  it("shows the owner's theme and the place's open state, as the sidecar's page does (issue 62)", async () => {
    const cafe = (await text('/p/qahwat-alnakheel')).body;
    // The owner's stylesheet (their accent, from theme.ts) and the hours now: the preview drew neither.
    expect(cafe).toMatch(/--accent:#[0-9a-f]{6}/);
    // (Astro's dev server adds attributes of its own to each element.)
    expect(cafe).toMatch(/class="open-now"[^>]*>(مفتوح الآن|مغلق الآن)/);
    expect(cafe).toMatch(/<table class="hours"[^>]*>/);
  });
});
