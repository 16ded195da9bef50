// The one judgement of a request's target, for the HTTP routes (the app's onRequest hook) and the MCP tools that name
// pages (read_page, resource templates): the decoded path, or nothing when it cannot name a page here; and whether its
// Host is one a request may carry.
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';

const ENCODED_SLASH = /%2f/gi;

/**
 * The decoded path of a request, or undefined when it cannot name a page: broken percent-encoding, a NUL byte,
 * a backslash, or a `.` or `..` segment (encoded or not: nothing here is addressed that way, and traversal is).
 */
export function checkedPathOfRequest(request: FastifyRequest): string | undefined {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return checkedPath(q === -1 ? url : url.slice(0, q));
}

/**
 * The same judgement for a raw path without its query (read_page asks it of the paths it follows). An encoded slash
 * stays encoded (`/p/layla%2F` is `/p/layla%2F`, not `/p/layla/`): no identifier here holds a slash, so such a path
 * names nothing (404, as Apache's AllowEncodedSlashes Off answers), and it is never mistaken for a trailing slash
 * whose canonical URL, made from the raw path, would be the same URL again.
 */
export function checkedPath(raw: string): string | undefined {
  // Most URLs have nothing to decode or judge: answer those without decoding.
  if (raw.indexOf('%') === -1 && raw.indexOf('/.') === -1 && raw.indexOf('\\') === -1 && raw.indexOf('\0') === -1)
    return raw;
  let path: string;
  try {
    path = decodeURIComponent(raw.replace(ENCODED_SLASH, '%252F'));
  } catch {
    return undefined;
  }
  // Dot segments are judged with encoded slashes read as slashes too, as a server that decodes them would read them
  // (`/p/..%2F..%2Fetc` is traversal, refused like `/p/../../etc`).
  if (
    /[\0\\]/.test(path) ||
    hasDotSegment(path) ||
    (path.includes('%2F') && hasDotSegment(path.replaceAll('%2F', '/')))
  )
    return undefined;
  return path;
}

function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => segment === '..' || segment === '.');
}

/**
 * The request target in origin form (`/p/layla?x`). RFC 9112 section 3.2.2: a server MUST accept the absolute form
 * (`GET http://host/p/layla`), which proxies send, and take the host from it rather than from the Host header. Fastify
 * routes on `req.url` (its rewriteUrl option calls this); anything else (`*`, garbage) is left to be refused.
 */
export function originForm(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (url.startsWith('/')) return url;
  const absolute = /^https?:\/\/([^/?#]*)([^#]*)/i.exec(url);
  if (!absolute) return url;
  const authority = absolute[1]!;
  req.headers.host = authority.slice(authority.lastIndexOf('@') + 1);
  const rest = absolute[2]!;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * RFC 9110 §7.2 and RFC 9112 §3.2: a Host is `uri-host [":" port]` (an IP literal in brackets, or a registered name of
 * unreserved characters, sub-delimiters and percent-escapes). Checked in one pass: no part of it can be read two ways.
 */
const HOST = /^(?:\[[\d.:A-F]+\]|[\w!$%&'()*+,.;=~-]*)(?::(\d{0,5}))?$/i;

/**
 * Whether the request's Host may be answered: exactly one Host field (RFC 9112 §3.2: a server MUST answer 400 to more
 * than one), whose value is a host and a port a connection can have. Node keeps only the first of several Host lines
 * in `headers`, so the raw lines are counted.
 */
export function hasValidHost(request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return false;
  const host = request.headers.host;
  if (host === undefined || host === lastValidHost) return true;
  const match = HOST.exec(host);
  const valid = match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
  if (valid) lastValidHost = host;
  return valid;
}

/** Nearly every request names the host the last one did: judged once. */
let lastValidHost: string | undefined;
