// Content negotiation at the front (nginx njs), the same decisions as sidecar/negotiation.ts, which uses the
// negotiator library: this is a port of negotiator's media-type and language ranking (RFC 9110 q-values,
// specificity, then order), kept to the two questions the site asks. test/front runs the project's HTTP suite
// through the front, so any difference from the sidecar fails a test.

/**
 * A header as the negotiation reads it (issue 60): no more than $negotiated_chars characters (the sidecar's
 * NEGOTIATED_HEADER_CHARS), cut after the last whole entry within them. A 15 KB Accept-Language was parsed whole on
 * every request, 404s included, which no rate limited: 76 such requests a second put another reader's pages at p50
 * 166 ms.
 */
function negotiable(r, header) {
  var max = Number(r.variables.negotiated_chars);
  if (!header || !(max > 0) || header.length <= max) return header;
  var cut = header.lastIndexOf(',', max);
  return cut === -1 ? '' : header.slice(0, cut);
}

function parseList(header) {
  // Comma-separated entries with ;-parameters; quoted strings may hold commas. Sliced, not built a character at a
  // time: njs copies a string each time one is extended.
  var entries = [];
  var start = 0;
  var quoted = false;
  for (var k = 0; k < header.length; k++) {
    var c = header.charCodeAt(k);
    if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) {
      entries.push(header.slice(start, k));
      start = k + 1;
    }
  }
  entries.push(header.slice(start));
  var out = [];
  for (var i = 0; i < entries.length; i++) {
    var parts = entries[i].split(';');
    var value = parts[0].trim();
    if (!value) continue;
    var params = {};
    for (var p = 1; p < parts.length; p++) {
      var eq = parts[p].indexOf('=');
      if (eq === -1) continue;
      params[parts[p].slice(0, eq).trim().toLowerCase()] = parts[p]
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '');
    }
    // As negotiator: an absent or empty q is 1; one that is not a number is NaN, which never counts as acceptable.
    var q = params.q ? parseFloat(params.q) : 1;
    delete params.q;
    out.push({ value: value, params: params, q: q, o: out.length });
  }
  return out;
}

function best(provided, accepted, specify) {
  var ranked = rank(provided, accepted, specify);
  return ranked.length ? provided[ranked[0].i] : undefined;
}

/** Each acceptable value of `provided`, best first, with the priority negotiator gives it (q, specificity, order). */
function rank(provided, accepted, specify) {
  var ranked = [];
  for (var i = 0; i < provided.length; i++) {
    var priority = { o: -1, q: 0, s: 0, i: i };
    for (var a = 0; a < accepted.length; a++) {
      var s = specify(provided[i], accepted[a]);
      if (s === null) continue;
      var spec = { o: accepted[a].o, q: accepted[a].q, s: s, i: i };
      if ((priority.s - spec.s || priority.q - spec.q || priority.o - spec.o) < 0) priority = spec;
    }
    if (priority.q > 0) ranked.push(priority);
  }
  ranked.sort(function (x, y) {
    return y.q - x.q || y.s - x.s || x.o - y.o || x.i - y.i;
  });
  return ranked;
}

function specifyType(type, spec) {
  var slash = spec.value.indexOf('/');
  if (slash === -1) return null;
  var specType = spec.value.slice(0, slash).toLowerCase();
  var specSub = spec.value.slice(slash + 1).toLowerCase();
  var mine = type.split('/');
  var s = 0;
  if (specType === mine[0]) s |= 4;
  else if (specType !== '*') return null;
  if (specSub === mine[1]) s |= 2;
  else if (specSub !== '*') return null;
  // A range's parameters are not weighed (the sidecar drops them too): each page has one HTML and one Markdown form,
  // both UTF-8, so `text/markdown; charset=utf-8` and `text/markdown; variant=GFM` name the twin.
  return s;
}

function specifyLanguage(lang, spec) {
  var full = spec.value.toLowerCase();
  var prefix = full.split('-')[0];
  if (full === lang) return 4;
  if (prefix === lang) return 2;
  if (full === lang.split('-')[0]) return 1;
  if (full !== '*') return null;
  return 0;
}

/** ".md" when the request prefers Markdown to HTML (HTML wins ties and is the answer when neither is acceptable). */
function twin(r) {
  var accept = negotiable(r, r.headersIn.Accept);
  if (!accept) return '.html';
  return best(['text/html', 'text/markdown'], parseList(accept), specifyType) === 'text/markdown' ? '.md' : '.html';
}

/**
 * ".md" for an error page when the request names a twin (a path ending in .md asks for Markdown whatever Accept
 * says) or prefers Markdown; else ".html" (the sidecar's error-pages.ts).
 */
function errorTwin(r) {
  return /\.md$/.test(r.uri) ? '.md' : twin(r);
}

/** `path` without the slashes it ends in (a loop: a pattern would try every start in a long run of slashes). */
function withoutTrailingSlashes(path) {
  var end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(0, end);
}

/** The site's languages, the default first: $site_langs, filled from src/lib/surface.ts by npm run front. */
function siteLangs(r) {
  return String(r.variables.site_langs || '')
    .split(' ')
    .filter(Boolean);
}

/** The error pages' language: the path's first segment when it is one, else Accept-Language (the default wins ties). */
function lang(r) {
  var langs = siteLangs(r);
  var first = r.uri.split('/')[1];
  if (langs.indexOf(first) !== -1) return first;
  var header = negotiable(r, r.headersIn['Accept-Language']);
  if (!header) return langs[0];
  return best(langs, parseList(header), specifyLanguage) || langs[0];
}

/**
 * Accept-Language as the front passes it to the sidecars (issue 48): the one site language it prefers, or nothing
 * (the header is then left out) when it prefers none, or none over another. The sidecars answer a profile's or card's printed address in
 * the owner's language the visitor prefers; with two site languages that is the one named here, so one value a
 * language reaches them, and a cache behind this front keeps one copy a language.
 */
function siteLang(r) {
  var header = negotiable(r, r.headersIn['Accept-Language']);
  if (!header) return '';
  var langs = siteLangs(r);
  var ranked = rank(langs, parseList(header), specifyLanguage);
  if (!ranked.length) return '';
  // The first two taken by one range alike (`*`): no preference between them, so the owner's own language decides,
  // as it does when the sidecar is sent no header.
  var top = ranked[0];
  var next = ranked[1];
  if (next && next.q === top.q && next.s === top.s && next.o === top.o) return '';
  return langs[top.i];
}

/** Vary for an error page: Accept-Language matters only when the path does not name the language. */
function errorVary(r) {
  return siteLangs(r).indexOf(r.uri.split('/')[1]) !== -1 ? 'Accept' : 'Accept, Accept-Language';
}

/**
 * The Link header of a page answer (the sidecar's pageHeaders, site-reader.ts): the site's links ($site_links, or
 * $home_links on a homepage) and the page's other representation at a URL of its own: the Markdown twin of an HTML
 * answer, the page of a Markdown one (negotiated, or its twin's own URL).
 */
function pageLink(r) {
  // The path as asked (r.uri is the file try_files settled on: /index.html for /).
  var uri = String(r.variables.request_uri || r.uri).split('?')[0];
  var origin = String(r.variables.site_origin || '');
  var home = siteLangs(r).some(function (l, i) {
    return uri === (i === 0 ? '/' : '/' + l) || uri === (i === 0 ? '/index.md' : '/' + l + '.md');
  });
  var links = String((home ? r.variables.home_links : r.variables.site_links) || '');
  var alternate;
  if (/\.md$/.test(uri))
    alternate = '<' + origin + (uri === '/index.md' ? '/' : uri.slice(0, -3)) + '>; rel="alternate"; type="text/html"';
  else if (twin(r) === '.md') alternate = '<' + origin + uri + '>; rel="alternate"; type="text/html"';
  else
    alternate =
      '<' +
      origin +
      (uri === '/' ? '/index.md' : withoutTrailingSlashes(uri) + '.md') +
      '>; rel="alternate"; type="text/markdown"';
  return links + ', ' + alternate;
}

/**
 * '1' when the request takes a content coding the sidecars send (gzip or br, or `*`, with a q above 0), else '': for
 * such a client the front asks the sidecars for gzip and decompresses it itself, as the client reads (nginx.conf).
 * A header that ranks identity above a coding it also takes is passed on as it is, and the sidecar decides.
 */
function takesCoding(r) {
  var header = negotiable(r, r.headersIn['Accept-Encoding']);
  if (!header) return '';
  var accepted = parseList(header);
  for (var i = 0; i < accepted.length; i++) {
    var coding = accepted[i].value.toLowerCase();
    if ((coding === 'gzip' || coding === 'br' || coding === '*') && accepted[i].q > 0) return '1';
  }
  return '';
}

// '1' when the request declares a body longer than $max_body (the front's map): nginx checks client_max_body_size
// only where it finds a location, not in the named location an error_page leads a request to (issue 46).
function declaredTooLarge(r) {
  return Number(r.headersIn['Content-Length'] || 0) > Number(r.variables.max_body) ? '1' : '';
}

export default { twin, errorTwin, lang, siteLang, errorVary, pageLink, declaredTooLarge, takesCoding };
