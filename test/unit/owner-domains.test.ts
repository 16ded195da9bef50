// An owner's own domain (issue 63): which hosts can be one, and the mapping of a profile's paths onto it and back,
// held for every route of a profile and a card the surface declares (not a list written here), and for paths drawn at
// random, which map back to what they came from or to nothing.
import { describe, expect, it } from 'vitest';
import {
  hostOf,
  hostProblem,
  isPlatformHost,
  OWNER_HSTS,
  pathOnDomain,
  platformPathOf,
  type OwnerDomain,
} from '../../src/lib/owner-domains.ts';
import { frontConfig } from '../../scripts/front-config.ts';
import { testConfig } from '../helpers/env.ts';
import { examplePath, LANGS, ROUTES, type RouteId } from '../../src/lib/surface.ts';
import { validateImport } from '../../sidecar/store/import-format.ts';

const layla: OwnerDomain = { host: 'links.example.sa', page: 'layla', cards: true };

describe('hosts', () => {
  it.each([
    ['Links.Example.SA', 'links.example.sa'],
    ['links.example.sa.', 'links.example.sa'],
    ['روابط.example', 'xn--mgbcz0a6f.example'],
    ['https://links.example.sa', undefined],
    ['links.example.sa:443', undefined],
    ['links.example.sa/p', undefined],
    ['user@links.example.sa', undefined],
    ['', undefined],
  ])('%j is written %j', (written, host) => {
    expect(hostOf(written)).toBe(host);
  });

  it.each([
    'example',
    '127.0.0.1',
    '10.0.0.1.2',
    '-bad.example',
    'bad-.example',
    'a..example',
    `${'a'.repeat(64)}.example`,
  ])('%j is no owner domain', (host) => {
    expect(hostProblem(host)).toBeDefined();
  });

  it("the platform's host and the names under it are not an owner's", () => {
    expect(hostProblem('bio.example', 'bio.example')).toMatch(/platform/);
    expect(hostProblem('www.bio.example', 'bio.example')).toMatch(/platform/);
    expect(hostProblem('notbio.example', 'bio.example')).toBeUndefined();
  });

  it('an import refuses a host that is none, one twice, and a profile with two', () => {
    const result = validateImport(
      {
        domains: [
          { host: 'https://x.example/', page: 'layla' },
          { host: 'a.example', page: 'layla' },
          { host: 'A.example', page: 'sam' },
          { host: 'bio.example', page: 'sam' },
        ],
      },
      () => true,
      { baseUrl: 'https://bio.example' },
    );
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors.join('\n');
    expect(errors).toMatch(/domains\[0\] \(host "https:\/\/x\.example\/"\)\.host .*must be a domain name/);
    expect(errors).toMatch(/domains\[2\] \(host "a\.example"\): appears twice/);
    expect(errors).toMatch(/domains\[1\] \(page "layla"\): appears twice/);
    expect(errors).toMatch(/domains\[3\]\.host "bio\.example": is the platform's own address/);
  });
});

/** Every declared GET route of a profile or a card, at its example's path (with Layla's slug). */
const ownerRoutes = (Object.keys(ROUTES) as RouteId[])
  .filter((id) => ROUTES[id].method === 'GET' && /^\/[pc]\/\{/.test(ROUTES[id].path))
  .map((id) => examplePath(id).replace(/^\/p\/[^/.]+/, '/p/layla'));

describe('paths on a domain', () => {
  it('has routes to map', () => {
    expect(ownerRoutes.filter((p) => p.startsWith('/p/')).length).toBeGreaterThan(5);
  });

  it.each(ownerRoutes)('%s maps onto the domain and back', (path) => {
    const there = pathOnDomain(layla, path);
    expect(there).toBeDefined();
    expect(there!.startsWith('/p/')).toBe(false);
    expect(platformPathOf(layla, there!)).toBe(path);
  });

  it('the profile is the root, its twin /index.md, a language its own segment', () => {
    expect(pathOnDomain(layla, '/p/layla')).toBe('/');
    expect(pathOnDomain(layla, '/p/layla.md')).toBe('/index.md');
    expect(pathOnDomain(layla, `/p/layla/${LANGS[1]}`)).toBe(`/${LANGS[1]}`);
    expect(pathOnDomain(layla, '/p/layla?x=1')).toBe('/?x=1');
    expect(pathOnDomain(layla, '/p/sam')).toBeUndefined();
    expect(pathOnDomain(layla, '/p/laylax')).toBeUndefined();
    expect(pathOnDomain({ ...layla, cards: false }, '/c/k7f2q9')).toBeUndefined();
  });

  it('a path drawn at random maps back to a route of the profile or to nothing', () => {
    const alphabet = ['/', 'p', 'c', 'layla', 'sam', '.md', 'og.png', 'qr.svg', ...LANGS, 'x', '.', '%2F'];
    let seed = 63;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const path = `/${Array.from({ length: 1 + Math.floor(next() * 5) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('')}`;
      const platform = platformPathOf(layla, path);
      if (platform === undefined) continue;
      expect(platform === '/p/layla' || platform.startsWith('/p/layla') || platform.startsWith('/c/'), path).toBe(true);
      if (!platform.startsWith('/c/')) expect(pathOnDomain(layla, platform), path).toBe(path);
    }
  });
});

describe("whose a request's host is", () => {
  it.each([
    ['bio.example', true],
    ['www.bio.example', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['localhost', true],
    [undefined, true],
    ['links.example.sa', false],
    // No DNS name: nobody's (421), never the platform's pages under a name that is not its own.
    ['links_northwind.example', false],
    ['1.2.3.4.5', false],
    ['0x7f.1', false],
  ])('%j is the platform’s: %s', (host, platform) => {
    expect(isPlatformHost(host, 'bio.example')).toBe(platform);
  });
});

describe('the front at an owner’s domain', () => {
  it("sends HSTS for that name alone (the platform's includeSubDomains would bind every name under an owner's apex)", () => {
    const conf = frontConfig({
      config: { ...testConfig, baseUrl: 'https://bio.example' },
      listen: '127.0.0.1:1',
      sidecars: ['127.0.0.1:2'],
      prefix: '/tmp/x',
    });
    const owners = conf.slice(conf.indexOf('server_name "~^'));
    const platform = conf.slice(0, conf.indexOf('server_name "~^'));
    expect(platform).toContain('includeSubDomains');
    expect(owners).toContain(`add_header strict-transport-security "${OWNER_HSTS}" always;`);
    expect(owners).not.toContain('includeSubDomains');
  });
});
