// What the project's fuzzer sends, drawn from the surface declaration and the MCP schemas: every declared route with
// its parameters valid and hostile and the many spellings of a path (percent-encodings, slashes, suffixes, queries,
// the absolute form), random paths, every method; the headers clients vary (Host, Accept, Accept-Encoding,
// Accept-Language, If-None-Match, the MCP headers); and for /mcp, JSON-RPC envelopes of every method this server
// knows under each protocol revision, alone and in batches, with bodies of every size, some sent slowly.
import fc from 'fast-check';
import { MCP_RESOURCE_TEMPLATES, MCP_SERVER, MCP_TOOLS } from '../../src/lib/mcp-tools.ts';
import {
  LANGS,
  MCP_BODY_LIMIT,
  OWNER_APP_SEGMENTS,
  paramNamesOf,
  ROUTES,
  type RouteDeclaration,
} from '../../src/lib/surface.ts';

export interface FuzzRequest {
  method: string;
  /** The request target as sent: the origin form (`/p/x?y`) or the absolute form (`http://host/p/x`). */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** The body sent in this many pieces, a few milliseconds apart (a slow sender). */
  pieces: number;
}

/** What the server holds, for drawing parameters that name something: by parameter name, values that exist. */
export interface Known {
  /** host:port the server listens on. */
  host: string;
  baseUrl: string;
  values: Record<string, string[]>;
}

const BOTH = 'application/json, text/event-stream';

/** Parameter values that name nothing or try something: traversal, encoded slashes, other spellings of numbers. */
const HOSTILE = [
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%00',
  '%ZZ',
  '%E0%A4%A',
  '%5c',
  'LAYLA',
  'layla-',
  '-layla',
  'a'.repeat(65),
  'x'.repeat(2100),
  '%D9%84%D9%8A%D9%84%D9%89',
  '%3Cscript%3E',
  '%E2%80%AE',
  '%20',
  '01',
  '+1',
  '1.0',
  '1e0',
  '0x1',
  '%201',
  '0',
  '-1',
  '99999999999999999999',
  'mcp',
  ...OWNER_APP_SEGMENTS.slice(0, 3),
];

/**
 * Long runs of one character or escape, for inputs whose cost may grow faster than their length (a regular
 * expression that backtracks, a loop over a loop): as long as a request line or a header may be (Node refuses a
 * request head over 16 KiB), and shorter. The bound the fuzzer holds each answer to (the event loop held no longer
 * than a few milliseconds) is what catches them.
 */
const RUN_LENGTHS = [500, 4_000, 15_000];
const RUN_UNITS = ['/', 'a', '.', '-', '%', '%2F', '%20', '\\', ' ', ',', ';', '=', '*', 'ا', '"', '{', '[', '0', '\t'];
export const longRun = fc
  .tuple(fc.constantFrom(...RUN_UNITS), fc.constantFrom(...RUN_LENGTHS))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
/** A long run as it can stand in a request target (spaces and controls encoded, the rest as it is). */
const longRunInPath = longRun.map((run) => run.replace(/[^\x21-\x7e]|["\\{}]/g, (c) => encodeURIComponent(c)));

/** A string as a path segment may carry it: percent-encoded where it must be. */
const segmentOf = (s: string) => encodeURIComponent(s);

function paramValue(name: string, known: Known): fc.Arbitrary<string> {
  const valid = known.values[name] ?? [];
  return fc.oneof(
    { weight: 5, arbitrary: valid.length ? fc.constantFrom(...valid) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(segmentOf) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(segmentOf) },
  );
}

/** A declared route's path with its parameters drawn. */
function routePath(route: RouteDeclaration, known: Known): fc.Arbitrary<string> {
  const names = paramNamesOf(route.path);
  if (names.length === 0) return fc.constant(route.path);
  return fc.tuple(...names.map((name) => paramValue(name, known))).map((values) => {
    let i = 0;
    return route.path.replace(/\{\w+\}/g, () => values[i++]!);
  });
}

const UNRESERVED = /[\w\-.~]/;

/** Other spellings of one path: some characters percent-encoded (either case), slashes doubled or added, suffixes. */
function respelled(path: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      path,
      fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), { freq: 4 }),
      fc.boolean(),
      fc.constantFrom('', '', '', '', '/', '//', '.md', '.html', '.br', '%2F', '/.', '/index'),
      fc.constantFrom('', '', '', '/', '//'),
    )
    .map(([p, encodeAt, lower, suffix, prefix]) => {
      let out = p;
      for (const at of encodeAt ?? []) {
        const i = at % Math.max(out.length, 1);
        const ch = out[i];
        if (!ch || !UNRESERVED.test(ch)) continue;
        const hex = ch.charCodeAt(0).toString(16).padStart(2, '0');
        out = `${out.slice(0, i)}%${lower ? hex : hex.toUpperCase()}${out.slice(i + 1)}`;
      }
      return `${prefix}${out}${suffix}`.replace(/^\/*/, '/');
    });
}

/** Paths nobody declared: segments of the site's own folders, of the owner app, and anything. */
function randomPath(): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.constantFrom(
      ...LANGS,
      ...OWNER_APP_SEGMENTS,
      'p',
      'c',
      'blog',
      'sitemaps',
      '_astro',
      'pagefind',
      '.well-known',
      'mcp',
      'docs',
      'global-scripts',
      'index.html',
      'robots.txt',
      '404',
      '500',
    ),
    fc.string({ maxLength: 10 }).map(segmentOf),
    fc.constantFrom(...HOSTILE),
  );
  return fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`);
}

export function pathArbitrary(known: Known): fc.Arbitrary<string> {
  const routes = (Object.values(ROUTES) as RouteDeclaration[]).filter((r) => r.method === 'GET');
  const declared = respelled(fc.oneof(...routes.map((r) => routePath(r, known))));
  // A declared path with a long run before, inside (as a parameter) or after it.
  const grown = fc
    .tuple(declared, longRunInPath, fc.constantFrom('before', 'after', 'segment'))
    .map(([path, run, where]) => {
      if (where === 'before') return `/${run}${path}`;
      if (where === 'after') return `${path}${run}`;
      return `${path}/${run}/a/`;
    });
  return fc.oneof(
    { weight: 12, arbitrary: declared },
    { weight: 2, arbitrary: randomPath() },
    { weight: 1, arbitrary: grown },
  );
}

const query = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: longRunInPath.map((run) => `?${run}`) },
  { weight: 1, arbitrary: fc.constantFrom('?', '?q=1', '?utm_source=x', '?page=2&page=3', '?%ZZ') },
  { weight: 1, arbitrary: fc.string({ maxLength: 16 }).map((s) => `?q=${encodeURIComponent(s)}`) },
);

const optionalHeader = (name: string, values: string[]) =>
  fc.option(fc.constantFrom(...values), { freq: 2 }).map((v) => (v === null ? {} : { [name]: v }));

/** Header values as clients send them, or a long run of one character (header values carry no control but tab). */
const optionalGrownHeader = (name: string, values: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: optionalHeader(name, values) },
    { weight: 1, arbitrary: longRun.map((run) => ({ [name]: run.replace(/[^\t\x20-\x7e]/g, 'a') })) },
  );

function commonHeaders(known: Known): fc.Arbitrary<Record<string, string>> {
  return fc
    .tuple(
      optionalGrownHeader('host', [
        known.host,
        known.host,
        new URL(known.baseUrl).host,
        'evil.example',
        '[::1]',
        'localhost',
        '127.0.0.1:99999999',
        'localhost:65536',
        '[::1]:99999',
      ]),
      optionalGrownHeader('accept', [
        'text/html',
        'text/markdown',
        'text/markdown;q=0.9, text/html;q=0.1',
        '*/*',
        'text/*',
        BOTH,
        'application/json',
        'garbage;;q=x',
        'image/*',
      ]),
      optionalGrownHeader('accept-encoding', [
        'gzip',
        'br',
        'gzip, br',
        'identity',
        'br;q=0, gzip;q=0',
        '*',
        'zstd',
        'gzip;q=banana',
      ]),
      optionalGrownHeader('accept-language', [
        'ar',
        'en',
        'fr',
        'ar-SA,ar;q=0.9',
        '*',
        '!!',
        'en;q=0, ar;q=0',
        'en-GB;q=0.8, ar-EG',
        'fr, en;q=0.3',
        'AR-sa',
        'ar;q=banana, en;q=1e9',
      ]),
      optionalGrownHeader('if-none-match', ['*', '"x"', 'W/"abc"', '"a", "b"']),
      optionalGrownHeader('origin', [`http://${known.host}`, 'https://evil.example', 'null']),
    )
    .map((parts) => Object.assign({}, ...parts) as Record<string, string>);
}

/** A GET, HEAD or other method on any path of the site. */
export function pageRequest(known: Known): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant('GET') },
        { weight: 3, arbitrary: fc.constant('HEAD') },
        { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'TRACE') },
      ),
      path: pathArbitrary(known),
      query,
      absolute: fc.boolean().chain((b) => (b ? fc.boolean().map((c) => c && 'absolute') : fc.constant(false))),
      headers: commonHeaders(known),
    })
    .map(({ method, path, query: q, absolute, headers }) => ({
      method,
      target: absolute ? `http://${known.host}${path}${q}` : `${path}${q}`,
      headers,
      ...(method === 'POST' || method === 'PUT' ? { body: 'x=1' } : {}),
      pieces: 1,
    }));
}

const VERSIONS = [...MCP_SERVER.protocolVersions, '2024-11-05', '2099-01-01', 'garbage'];
const MODERN = MCP_SERVER.protocolVersions[0];
const TOOL_NAMES = Object.keys(MCP_TOOLS);

/** Arguments of a tool, drawn from its input schema's fields with values valid and not. */
function toolArguments(known: Known): fc.Arbitrary<[string, unknown]> {
  const lang = fc.option(fc.constantFrom(...LANGS, 'fr', 'AR', ''), { freq: 2 });
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
  return fc.oneof(
    fc
      .tuple(paramValue('page', known), lang)
      .map(([page, l]) => ['get_profile', defined({ page: decodeSafely(page), lang: l })] as [string, unknown]),
    fc
      .tuple(paramValue('cardId', known), lang)
      .map(
        ([cardId, l]) => ['get_digital_card', defined({ cardId: decodeSafely(cardId), lang: l })] as [string, unknown],
      ),
    fc
      .tuple(lang, fc.option(paramValue('topic', known), { freq: 2 }))
      .map(([l, topic]) => ['list_blog_articles', defined({ lang: l, topic })] as [string, unknown]),
    fc
      .tuple(paramValue('slug', known), lang)
      .map(([slug, l]) => ['get_blog_article', defined({ slug: decodeSafely(slug), lang: l })] as [string, unknown]),
    fc
      .tuple(pathArbitrary(known), fc.boolean())
      .map(
        ([path, absolute]) => ['read_page', { path: absolute ? `${known.baseUrl}${path}` : path }] as [string, unknown],
      ),
    fc
      .tuple(fc.constantFrom(...TOOL_NAMES, 'no_such_tool', ''), fc.jsonValue({ maxDepth: 2 }))
      .map(([name, args]) => [name, args] as [string, unknown]),
    // A long run in every string argument a tool takes.
    fc
      .tuple(fc.constantFrom(...TOOL_NAMES), longRun)
      .map(
        ([name, run]) =>
          [name, { page: run, cardId: run, slug: run, lang: run, topic: run, path: run }] as [string, unknown],
      ),
  );
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One JSON-RPC message this server may be sent: every method it knows, and some it does not. */
function message(known: Known): fc.Arbitrary<{ method: string; name?: string; message: Record<string, unknown> }> {
  const id = fc.oneof(
    { weight: 5, arbitrary: fc.integer() },
    { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, 1.5, true) },
  );
  const templates = MCP_RESOURCE_TEMPLATES.map((t) => `${known.baseUrl}${ROUTES[t.route].path}`);
  const call: fc.Arbitrary<{ method: string; name?: string; params: Record<string, unknown> }> = fc.oneof(
    fc
      .constantFrom(
        'ping',
        'tools/list',
        'resources/list',
        'resources/templates/list',
        'server/discover',
        'subscriptions/listen',
        'logging/setLevel',
        'prompts/list',
        'no/such',
      )
      .map((method) => ({ method, params: {} })),
    fc.constantFrom(...VERSIONS).map((v) => ({
      method: 'initialize',
      params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    })),
    toolArguments(known).map(([name, args]) => ({ method: 'tools/call', name, params: { name, arguments: args } })),
    fc
      .oneof(
        pathArbitrary(known).map((p) => `${known.baseUrl}${p}`),
        fc.constantFrom('file:///etc/passwd', `${known.baseUrl}/docs/api.md`, `${known.baseUrl}/openapi.json`, 'x'),
      )
      .map((uri) => ({ method: 'resources/read', name: uri, params: { uri } })),
    longRun.map((run) => ({ method: 'resources/read', params: { uri: run } })),
    fc
      .tuple(fc.constantFrom('tools/list', 'resources/list', 'resources/templates/list'), longRun)
      .map(([method, cursor]) => ({ method, params: { cursor } })),
    fc
      .tuple(
        fc.constantFrom(...templates, 'x'),
        fc.constantFrom('slug', 'lang', 'page', 'x'),
        fc.oneof(fc.string({ maxLength: 40 }), longRun),
      )
      .map(([uri, name, value]) => ({
        method: 'completion/complete',
        params: { ref: { type: 'ref/resource', uri }, argument: { name, value } },
      })),
  );
  return fc
    .tuple(
      id,
      call,
      fc.option(fc.constantFrom(...VERSIONS), { freq: 3 }),
      fc.boolean(),
      fc.option(fc.jsonValue({ maxDepth: 1 }), { freq: 10 }),
    )
    .map(([i, c, envelopeVersion, notification, wrongParams]) => {
      const params = envelopeVersion
        ? {
            ...c.params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': envelopeVersion,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }
        : c.params;
      const m: Record<string, unknown> = { jsonrpc: '2.0', method: c.method, params: wrongParams ?? params };
      if (!notification || c.method !== 'ping') m.id = i;
      return { method: c.method, ...(c.name === undefined ? {} : { name: String(c.name) }), message: m };
    });
}

/** A POST to /mcp: one message or a batch, under any protocol version header, of any size, some sent slowly. */
export function mcpRequest(known: Known): fc.Arbitrary<FuzzRequest> {
  const one = message(known);
  const body = fc.oneof(
    { weight: 8, arbitrary: one.map((m) => ({ body: JSON.stringify(m.message), method: m.method, name: m.name })) },
    {
      weight: 3,
      arbitrary: fc
        .array(
          fc.oneof(
            { weight: 6, arbitrary: one.map((m) => m.message as unknown) },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
          ),
          { minLength: 1, maxLength: 12 },
        )
        .map((ms) => ({ body: JSON.stringify(ms) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.string({ maxLength: 40 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          fc.constantFrom('[]', '{', '[[[[[[', '{"jsonrpc":"2.0"}'),
        )
        .map((b) => ({ body: b })),
    },
  );
  return fc
    .record({
      body,
      pad: fc.constantFrom(0, 0, 0, 0, 0, 2_000, MCP_BODY_LIMIT - 600, MCP_BODY_LIMIT + 10, 4 * MCP_BODY_LIMIT),
      version: fc.option(fc.constantFrom(...VERSIONS), { freq: 2 }),
      methodHeader: fc.boolean(),
      accept: fc.constantFrom(BOTH, BOTH, BOTH, BOTH, 'application/json', '*/*'),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
      ),
      pieces: fc.constantFrom(1, 1, 1, 1, 1, 1, 3),
      headers: commonHeaders(known),
    })
    .map(({ body: b, pad, version, methodHeader, accept, contentType, pieces, headers }) => {
      // Padding keeps the JSON valid: whitespace after the value.
      const text = pad > 0 ? `${b.body}${' '.repeat(pad)}` : b.body;
      const mcp: Record<string, string> = {};
      if (version) mcp['mcp-protocol-version'] = version;
      if (methodHeader && 'method' in b && b.method) mcp['mcp-method'] = b.method;
      if (methodHeader && 'name' in b && b.name) mcp['mcp-name'] = encodeURIComponent(b.name);
      if (version === MODERN && !mcp['mcp-method'] && 'method' in b && b.method) mcp['mcp-method'] = b.method;
      return {
        method: 'POST',
        target: '/mcp',
        headers: { ...headers, accept, 'content-type': contentType, ...mcp },
        body: text,
        pieces,
      };
    });
}

/** Any request the fuzzer sends. */
export function requestArbitrary(known: Known): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 3, arbitrary: pageRequest(known) }, { weight: 2, arbitrary: mcpRequest(known) });
}
