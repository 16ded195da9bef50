// The Store contract: one set of expectations, run against both backends without HTTP. Each backend is written by its
// own writer (the CLI's path) and read by its own reader (the server's), so a query or a column added to one and not
// the other fails here. SQLite: a file. PostgreSQL: a database on the primary, read from the streaming standby with
// the read-only role.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../sidecar/store/open-store.ts';
import type { Store } from '../../sidecar/store/store.ts';
import { openWriter, type StoreWriter } from '../../sidecar/store/writer.ts';
import { demoData, demoDataFile } from '../helpers/database.ts';
import { IMAGE_WIDTHS, imageFile } from '../../src/lib/image-files.ts';
import { testConfig } from '../helpers/env.ts';
import { grantReader, ports, replayed, url, withClient } from '../helpers/postgres.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

interface Backend {
  name: string;
  /** A new, empty database: the writer for it, and a function that opens the server's store on it. */
  create(): Promise<{ writer: StoreWriter; read(): Store; settle(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    async create() {
      const databasePath = join(temporaryFolder('contract-'), 'bio.db');
      const writer = await openWriter({ databasePath });
      return {
        writer,
        read: () => openStore({ ...testConfig, databasePath, databaseUrl: undefined }),
        settle: async () => undefined,
      };
    },
  },
  {
    name: 'PostgreSQL standby',
    async create() {
      const { primary, standby } = ports();
      const name = `contract_${Math.random().toString(36).slice(2, 10)}`;
      await withClient(url(primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${name}`));
      const writer = await openWriter({ databasePath: '', databaseUrl: url(primary, name) });
      await writer.migrate();
      await withClient(url(primary, name), grantReader);
      const read = () => openStore({ ...testConfig, databaseUrl: url(standby, name, 'bio_reader') });
      return { writer, read, settle: replayed };
    },
  },
];

/** A profile whose bio and links an owner's edit n sets together, to tell a whole edit from half of one. */
function edited(n: number) {
  return {
    slug: 'contract-edited',
    name: 'Edited',
    bio: `edit ${n}`,
    lang: 'en',
    links: [
      { title: `edit ${n}`, url: 'https://example.com/a' },
      { title: `edit ${n}`, url: 'https://example.com/b' },
    ],
  };
}

/** The demo data plus what the contract needs: hidden links, an unpublished profile, an inactive card, a free alias. */
const data = {
  ...demoData,
  profiles: [
    ...(demoData.profiles as unknown[]),
    {
      slug: 'contract-person',
      name: 'Contract Person',
      bio: 'Links in every state.',
      lang: 'en',
      plan: 'free',
      links: [
        { title: 'Second', url: 'https://example.com/2' },
        { title: 'Hidden', url: 'https://example.com/hidden', enabled: false },
        { title: 'First', url: 'https://example.com/1', pinned: true },
        { title: 'Later', url: 'https://example.com/later', startsAt: '2030-01-01T00:00:00Z' },
      ],
      socials: [{ network: 'github', url: 'https://github.com/contract' }],
    },
    { slug: 'contract-draft', name: 'Draft', lang: 'ar', published: false },
    edited(0),
  ],
  cards: [
    ...(demoData.cards as unknown[]),
    { cardId: 'contract-off', mode: 'page', name: 'Off', active: false },
    {
      cardId: 'contract-1',
      mode: 'page',
      name: 'Mine',
      profile: 'contract-person',
      phones: ['+1 555 0100'],
      emails: ['me@example.com'],
    },
  ],
  aliases: [...(demoData.aliases as unknown[]), { alias: 'contract', page: 'contract-person' }],
};

describe.each(backends)('the Store contract on $name', (backend) => {
  let store: Store;
  let writer: StoreWriter;
  let settle: () => Promise<void>;
  beforeAll(async () => {
    const created = await backend.create();
    writer = created.writer;
    settle = created.settle;
    const outcome = await writer.importData(data, { from: demoDataFile });
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    await settle();
    store = created.read();
    // A standby's store answers once its first probe connected.
    for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
  });
  afterAll(async () => {
    await store?.close();
    await writer?.close();
  });

  it('is available, and reads a published profile: enabled links pinned first then in order, socials', async () => {
    expect(await store.isAvailable()).toBe(true);
    const profile = await store.profile('contract-person');
    expect(profile).toMatchObject({
      slug: 'contract-person',
      name: 'Contract Person',
      bio: 'Links in every state.',
      lang: 'en',
      kind: 'person',
      plan: 'free',
      avatar: null,
    });
    expect(profile?.links.map((l) => [l.title, l.pinned])).toEqual([
      ['First', true],
      ['Second', false],
      ['Later', false],
    ]);
    expect(profile?.links[2]?.startsAt).toBe('2030-01-01T00:00:00.000Z');
    expect(profile?.socials).toEqual([{ network: 'github', url: 'https://github.com/contract' }]);
    expect(typeof profile?.updatedAt).toBe('string');
  });

  it('reads no unpublished or unknown profile', async () => {
    expect(await store.profile('contract-draft')).toBeUndefined();
    expect(await store.profile('nobody')).toBeUndefined();
  });

  it('reads an active card with its owner, a redirect card, and no inactive one', async () => {
    const card = await store.card('contract-1');
    expect(card).toMatchObject({
      cardId: 'contract-1',
      mode: 'page',
      name: 'Mine',
      profileSlug: 'contract-person',
      profileKind: 'person',
      phones: [{ number: '+1 555 0100', type: 'phone' }],
      emails: [{ address: 'me@example.com', type: 'work' }],
    });
    expect(await store.card('r8x1')).toMatchObject({ mode: 'redirect', redirectUrl: 'https://example.com/' });
    expect(await store.card('contract-off')).toBeUndefined();
  });

  it("reads a profile's and a card's image, and each of its files by name; no file of a name it does not hold", async () => {
    const avatar = (await store.profile('sam-rivera'))?.avatar;
    expect(avatar).toMatch(/^[0-9a-f]{32}$/);
    expect((await store.card('k7f2q9'))?.photo).toBe((await store.profile('layla'))?.avatar);
    for (const width of IMAGE_WIDTHS) {
      const jpeg = await store.image(imageFile(avatar!, width, 'jpg'));
      expect(Buffer.from(jpeg!).subarray(0, 3).toString('hex')).toBe('ffd8ff');
      const webp = await store.image(imageFile(avatar!, width, 'webp'));
      expect(Buffer.from(webp!).subarray(8, 12).toString('latin1')).toBe('WEBP');
    }
    expect(await store.image(imageFile('0'.repeat(32), 96, 'jpg'))).toBeUndefined();
  });

  it('resolves aliases with their owner’s plan and state', async () => {
    expect(await store.alias('layla')).toEqual({ slug: 'layla', plan: 'paid', published: true });
    expect(await store.alias('contract')).toEqual({ slug: 'contract-person', plan: 'free', published: true });
    expect(await store.alias('nothing')).toBeUndefined();
  });

  it('walks, counts and pages the sitemap’s live part by key, in bounded steps', async () => {
    const profiles = (data.profiles as { slug: string; published?: boolean }[])
      .filter((p) => p.published !== false)
      .map((p) => p.slug)
      .sort();
    expect(await store.liveKeyAfter('profile', '', 0)).toBe(profiles[0]);
    expect(await store.liveKeyAfter('profile', profiles[0]!, 1)).toBe(profiles[2]);
    expect(await store.liveKeyAfter('profile', profiles.at(-1)!, 0)).toBeUndefined();
    expect((await store.liveCountAfter('profile', '', 1000)).rows).toBe(profiles.length);
    expect((await store.liveCountAfter('profile', '', 2)).rows).toBe(2);
    expect((await store.liveCountAfter('profile', profiles[0]!, 1000)).rows).toBe(profiles.length - 1);
    const page = await store.livePagesFrom('profile', profiles[1]!, 2);
    expect(page.map((p) => p.key)).toEqual(profiles.slice(1, 3));
    // One of them translated: the sitemap lists it twice.
    expect(await store.liveCountAfter('card', '', 1000)).toEqual({ rows: 4, translated: 1 });
    // Each with its languages, its own first (the café's card is translated into English).
    expect((await store.livePagesFrom('card', '', 10)).map((p) => `${p.key} ${p.langs.join(',')}`)).toEqual([
      'contract-1 en',
      'k7f2q9 ar',
      'n0rth1 en',
      'nakheel1 ar,en',
    ]);
  });

  it('reads a profile whole while its owner’s edits commit: never one edit’s bio with another’s links', async () => {
    let writing = true;
    const edits = (async () => {
      for (let n = 1; n <= 300; n++) {
        const outcome = await writer.importData({ profiles: [edited(n)] });
        expect(outcome.ok).toBe(true);
      }
      writing = false;
    })();
    const torn: string[] = [];
    let reads = 0;
    while (writing) {
      const profile = await store.profile('contract-edited');
      reads++;
      const shown = new Set([profile?.bio, ...(profile?.links.map((l) => l.title) ?? [])]);
      if (shown.size !== 1) torn.push([...shown].join(' / '));
    }
    await edits;
    await settle();
    expect(reads).toBeGreaterThan(50);
    expect(torn).toEqual([]);
  });

  it('records every write in the change log, and the version moves with it', async () => {
    const before = await store.changesSince(0, 100_000);
    const version = await store.version();
    expect(before.complete).toBe(true);
    expect(before.last).toBeGreaterThan(0);
    const outcome = await writer.importData({ profiles: [{ slug: 'contract-person', name: 'Renamed', lang: 'en' }] });
    expect(outcome.ok).toBe(true);
    await settle();
    const after = await store.changesSince(before.last, 100_000);
    expect(after.epoch).toBe(before.epoch);
    // The profile, its card and its alias (they show it), in the log's order.
    expect(new Set(after.changes.map((c) => `${c.kind}:${c.key}`))).toEqual(
      new Set(['profile:contract-person', 'card:contract-1', 'alias:contract']),
    );
    // SQLite's reader learns of another process's commit from a file-system event, delivered asynchronously.
    for (let i = 0; i < 100 && (await store.version()) === version; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await store.version()).not.toBe(version);
    expect((await store.profile('contract-person'))?.name).toBe('Renamed');
    const limited = await store.changesSince(0, 2);
    expect(limited.changes).toHaveLength(2);
    expect(limited.complete).toBe(false);
  });
});

describe('both backends answer alike', () => {
  it('every read gives the same value on SQLite and on the PostgreSQL standby', async () => {
    const opened = await Promise.all(backends.map((b) => b.create()));
    const stores: Store[] = [];
    for (const { writer, settle, read } of opened) {
      expect((await writer.importData(data, { from: demoDataFile })).ok).toBe(true);
      await settle();
      const store = read();
      for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
      stores.push(store);
    }
    const read = async (store: Store) => ({
      profiles: await Promise.all(
        ['layla', 'contract-person', 'contract-draft', 'sam-rivera'].map((slug) => store.profile(slug)),
      ),
      cards: await Promise.all(['k7f2q9', 'n0rth1', 'r8x1', 'contract-1', 'contract-off'].map((id) => store.card(id))),
      aliases: await Promise.all(['layla', 'nakheel', 'contract', 'none'].map((a) => store.alias(a))),
      counts: [await store.liveCountAfter('profile', '', 1000), await store.liveCountAfter('card', '', 1000)],
      keys: [await store.liveKeyAfter('profile', '', 3), await store.liveKeyAfter('card', '', 2)],
      pages: [
        (await store.livePagesFrom('profile', '', 100)).map((p) => `${p.key} ${p.langs.join(',')}`),
        (await store.livePagesFrom('card', '', 100)).map((p) => `${p.key} ${p.langs.join(',')}`),
      ],
      changes: (await store.changesSince(0, 100_000)).changes.map((c) => `${c.kind}:${c.key}`).sort(),
      images: await Promise.all(
        IMAGE_WIDTHS.map(async (w) =>
          Buffer.from((await store.image(imageFile('3a6b40090c74cf2e5280345701281069', w, 'webp')))!).toString(
            'base64',
          ),
        ),
      ),
    });
    const [sqlite, postgres] = await Promise.all(stores.map(read));
    // Time stamps are each import's own.
    const withoutTimes = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (key, v) => (key === 'updatedAt' ? undefined : v)));
    expect(withoutTimes(postgres)).toEqual(withoutTimes(sqlite));
    for (const store of stores) await store.close();
    for (const { writer } of opened) await writer.close();
  });
});
