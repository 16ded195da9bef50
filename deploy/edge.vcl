vcl 4.1;
# The edge: Varnish in front of a sidecar or the nginx front (README, "The edge"). A template: `npm run edge` fills
# the {{…}} (the backend, who may purge, the 503 page). Needs varnish and varnish-modules (xkey) from Debian.
#
# What it keeps, and for how long, is the origin's to say, so this file needs no route list:
# - live answers (profiles, cards, vCards, codes, aliases) carry CDN-Cache-Control (RFC 9213; src/lib/surface.ts
#   CACHE.edgeLive) and name the entity they were built from in an `xkey` header (EDGE_TAG_HEADER): kept for
#   max-age, served stale-if-error longer while the origin fails, and made stale as soon as the purger sends
#   `PURGE` with `xkey-purge: profile:layla` (or `live`, every live page): a soft purge (xkey.softpurge), so the
#   next reader waits for the new page (one fetch, shared by every reader asking meanwhile), and the stale copy is
#   kept for when the origin fails (vcl_recv);
#   a `PURGE` of a URL without tags drops that URL (publishing a build purges each static page it changed);
# - static files follow Cache-Control (Varnish's built-in rules); answers marked no-cache or no-store without
#   CDN-Cache-Control (error pages, /health, /mcp) are not kept.
# Before a response leaves the edge, the tags and CDN-Cache-Control are removed; Cache-Control, ETag, Vary and the
# security headers go out as the origin sent them, so browsers revalidate live pages exactly as without an edge.
#
# Fair to every client (issue 46): what reaches the origin (misses and passes) is rated per client (vsthrottle: a
# burst, then an average per second; past it 429 with Retry-After), a body is judged whole before it goes on (its
# declared length, and a chunked one read here up to the limit), and the client's address goes to the origin in
# X-Forwarded-For (Varnish appends client.ip), which the sidecars believe from this edge (their TRUST_PROXY), so their
# own limits count the client, not the edge. Behind a load balancer, set client.identity from its header first.

import xkey;
import std;
import vsthrottle;
import accept;
import directors;

# The origin: one sidecar, or several taken in turn (round robin), each declared twice, with two probes (issue 61).
# `origin_health` asks /health: a sidecar whose database answers, for everything. `origin_alive` asks /livez: a
# sidecar that answers at all, which serves the static build, the discovery documents and the twins of static pages
# without its database. While no sidecar's /health is 200 (the database is away), requests go to the live ones: what
# needs the database is their own 503 with Retry-After (and a kept copy of a live page is served stale meanwhile);
# everything else is 200, so a database outage degrades the site, never darkens it. Each probe marks a backend sick
# after 4 of 5 fail (a loaded origin may answer one slowly): then nothing waits on it. Healthy from the start: the
# first requests need not wait for a probe.
probe origin_health {
  .url = "{{PROBE_PATH}}";
  .interval = 1s;
  .timeout = 2s;
  .window = 5;
  .threshold = 2;
  .initial = 2;
}

probe origin_alive {
  .url = "{{ALIVE_PATH}}";
  .interval = 1s;
  .timeout = 2s;
  .window = 5;
  .threshold = 2;
  .initial = 2;
}

{{BACKENDS}}

acl purgers {
{{PURGERS}}
}

# The site's languages (src/lib/locales.ts), in its order: what Accept-Language is reduced to.
sub vcl_init {
  new origins = directors.round_robin();
  new alive = directors.round_robin();
{{ADD_BACKENDS}}
  new site_languages = accept.rule("");
{{SITE_LANGUAGES}}
}

sub vcl_recv {
  set req.backend_hint = origins.backend();
  # A kept copy past its time (expired, or soft-purged after an edit) is served only while the origin fails (issue 62:
  # stale-if-error, not stale-while-revalidate): while a sidecar's /health is 200, the first reader after a link's
  # start or an owner's edit waits for the new page, which every reader asking meanwhile shares (one fetch). A fetch
  # that fails then is asked again once (vcl_deliver), taking the kept copy if there is one.
  if (req.restarts == 0) {
    unset req.http.x-stale-ok;
    unset req.http.x-fresh-only;
    unset req.http.x-edge-fetch;
    # This edge's id for the request (issue 64), sent to the origin, which keeps it from this edge (its TRUST_PROXY),
    # and returned: its start (seconds) and Varnish's transaction number. A client's own is not believed.
    set req.http.X-Request-Id = "edge-" + std.time2integer(now, 0) + "-" + req.xid;
  }
  if (req.http.x-stale-ok) {
    # Each copy's own grace (its stale-if-error) bounds it; a restart keeps what req.grace was set to.
    set req.grace = 3650d;
  } elsif (std.healthy(req.backend_hint) && (req.method == "GET" || req.method == "HEAD")) {
    # (Only what is kept: a POST passes, and is never asked twice.)
    set req.grace = 0s;
    set req.http.x-fresh-only = "1";
  }
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) {
      return (synth(403, "Forbidden"));
    }
    # Without tags, the URL itself, every representation kept of it (HTML and Markdown, each encoding): what
    # publishing sends for each static page whose bytes changed (scripts/publish.ts, --purge-edge).
    if (!req.http.xkey-purge) {
      return (purge);
    }
    set req.http.x-purged = xkey.softpurge(req.http.xkey-purge);
    return (synth(200, "Purged " + req.http.x-purged));
  }
  # Every request, per client (issue 60): {{EVERY_BURST}}, then {{EVERY_RATE}} a second on average; past it, 429.
  if (vsthrottle.is_denied("every " + client.identity, {{EVERY_BURST}}, {{EVERY_PERIOD}}s)) {
    return (synth(429, "Too Many Requests"));
  }
  # A request line of 8,000 characters and more names no page (an identifier is 64 at most), as nginx's 8k buffer
  # refuses it: 414 here, not the origin's redirect of it, whose Location would be longer than this cache takes.
  if (req.url ~ "^.{8000}") {
    return (synth(414, "URI Too Long"));
  }
  if (req.method != "GET" && req.method != "HEAD") {
    # The MCP endpoint's body limit, answered here as the sidecar answers it: forwarding the body would only have the
    # origin refuse it half-read. A body of no declared length (chunked) is read here up to the limit first; one
    # longer is refused the same way.
    if (std.integer(req.http.Content-Length, 0) > {{MAX_BODY_BYTES}}) {
      return (synth(413, "Payload Too Large"));
    }
    if (req.http.Transfer-Encoding && !std.cache_req_body({{MAX_BODY_BYTES}}B)) {
      return (synth(413, "Payload Too Large"));
    }
    set req.http.x-edge-pass = "1";
    return (pass);
  }
  # The answers vary on Accept and Accept-Encoding: keep one copy per representation, not per browser's header.
  # The origin answers Markdown only when text/markdown is asked for; brotli before gzip, as the sidecar does.
  if (req.http.Accept !~ "(?i)text/markdown") {
    set req.http.Accept = "text/html";
  }
  if (req.http.Accept-Encoding ~ "\bbr\b" && req.http.Accept-Encoding !~ "\bbr\s*;\s*q=0(\.0*)?\s*(,|$)") {
    set req.http.Accept-Encoding = "br";
  } elsif (req.http.Accept-Encoding ~ "\bgzip\b" && req.http.Accept-Encoding !~ "\bgzip\s*;\s*q=0(\.0*)?\s*(,|$)") {
    set req.http.Accept-Encoding = "gzip";
  } else {
    unset req.http.Accept-Encoding;
  }
  # Accept-Language (issue 48): a profile's or card's printed address answers in the owner's language the visitor
  # prefers, varying on it. Kept as the one site language the visitor prefers (a regional tag names its language:
  # en-GB is en), so that an answer is kept once a language, not once a browser's header. A visitor who prefers none
  # (a crawler) is served the owner's own language: looked up as the default language's copy, which names the owner's
  # language ({{OWN_LANGUAGE_HEADER}}); when that is another, that language's copy (a restart, in memory).
  if (req.restarts == 0) {
    set req.http.Accept-Language = site_languages.filter(
      regsuball(req.http.Accept-Language, "([A-Za-z]{1,8})-[A-Za-z0-9-]*", "\1"));
    if (req.http.Accept-Language == "") {
      set req.http.x-no-language = "1";
      set req.http.Accept-Language = "{{DEFAULT_LANG}}";
    }
  }
  # Nothing on this surface depends on a cookie or credentials; the owner app lives elsewhere.
  unset req.http.Cookie;
  if (req.http.Authorization) {
    set req.http.x-edge-pass = "1";
    return (pass);
  }
  return (hash);
}

# What goes to the origin, per client: {{ORIGIN_BURST}} requests, then {{ORIGIN_RATE}} a second on average.
sub origin_share {
  if (vsthrottle.is_denied("origin " + client.identity, {{ORIGIN_BURST}}, {{ORIGIN_PERIOD}}s)) {
    return (synth(429, "Too Many Requests"));
  }
}

sub vcl_miss {
  call origin_share;
}

sub vcl_pass {
  call origin_share;
}

# No sidecar with its database: the ones that answer at all (see the probes above).
sub vcl_backend_fetch {
  # A fetch sent again (vcl_backend_error, vcl_backend_response) goes to another sidecar than the one that failed it:
  # taken in turn, the next pick could be that one again whenever another fetch had picked in between.
  if (bereq.retries > 0 && bereq.http.x-failed-backend) {
{{OTHER_THAN_FAILED}}
  }
  unset bereq.http.x-failed-backend;
  if (!std.healthy(bereq.backend)) {
    set bereq.backend = alive.backend();
  }
  # A fetch of what is kept (a miss, a purged page's new copy) has the origin read its change log first (issue 65):
  # after a purge, the purger may have found the edit before this sidecar did.
  if (!bereq.uncacheable) {
    set bereq.http.x-edge-fetch = "1";
  }
}

sub vcl_backend_response {
  # A background fetch of a stale copy that fails (the database away) keeps the copy: it is what stale-if-error is
  # for.
  if (bereq.is_bgfetch && beresp.status >= 500) {
    return (abandon);
  }
  # So does a new page's fetch that fails while the origin is deemed up: first asked of another sidecar, when there
  # is one (one whose database is away, or that is still starting, answers 503 while another answers 200: a balancer
  # sends the request on); then the reader is asked for again with the kept copy allowed (vcl_synth), and only when
  # none is kept does the origin's own answer go out (issue 62).
  if (beresp.status >= 500 && bereq.http.x-fresh-only) {
    if (bereq.retries < {{OTHER_BACKENDS}}) {
      set bereq.http.x-failed-backend = beresp.backend;
      return (retry);
    }
    return (abandon);
  }
  # A large document for a client that takes no compression (a sitemap part of 5 MB) is not kept: each such client is
  # sent it by the origin, paced and within its share of decompression slots (sidecar/send.ts). Kept, it went from
  # here as fast as each client read: five addresses doing so put another reader's cached page at p99 6-9× its
  # baseline (issue 46). Crawlers take gzip; that copy is kept.
  if (!bereq.http.Accept-Encoding && std.integer(beresp.http.Content-Length, 0) > {{LARGE_DOCUMENT}}) {
    set beresp.uncacheable = true;
    set beresp.ttl = 120s;
    return (deliver);
  }
  if (beresp.http.CDN-Cache-Control ~ "max-age=[0-9]+") {
    set beresp.ttl = std.duration(regsub(beresp.http.CDN-Cache-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
    if (beresp.http.CDN-Cache-Control ~ "stale-if-error=[0-9]+") {
      set beresp.grace = std.duration(regsub(beresp.http.CDN-Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1") + "s", 0s);
    }
    # Cache-Control: no-cache is for browsers here; the built-in rules would refuse to keep it.
    return (deliver);
  }
  # What HTTP caching (RFC 9111) asks of a shared cache where Varnish's defaults differ, found by the http-tests
  # cache suite (docs/benchmarks/regions.md). `Vary: *` never matches a later request: not kept.
  if (beresp.http.Vary ~ "(^|,)\s*\*\s*(,|$)") {
    set beresp.uncacheable = true;
    set beresp.ttl = 0s;
    return (deliver);
  }
  # No freshness from the origin (no max-age, s-maxage, Expires or Surrogate-Control) and no Last-Modified to guess
  # one from (RFC 9111 4.2.2): not kept on Varnish's default_ttl alone.
  if (beresp.http.Cache-Control !~ "(?i)(s-maxage|max-age)\s*=\s*[0-9]+" && !beresp.http.Expires && !beresp.http.Last-Modified && !beresp.http.Surrogate-Control) {
    set beresp.uncacheable = true;
    set beresp.ttl = 0s;
    return (deliver);
  }
  # must-revalidate, proxy-revalidate and s-maxage forbid a shared cache to serve the response stale.
  if (beresp.http.Cache-Control ~ "(?i)(must-revalidate|proxy-revalidate|s-maxage)") {
    set beresp.grace = 0s;
  }
}

sub vcl_backend_error {
  # Another sidecar, when there are others, for a request that can be sent again: this one could not be reached, or
  # failed before it answered (killed, restarting).
  if (bereq.retries < {{OTHER_BACKENDS}} && (bereq.method == "GET" || bereq.method == "HEAD")) {
    set bereq.http.x-failed-backend = beresp.backend;
    return (retry);
  }
  # The origin cannot be reached and nothing is kept for this URL: the site's own 503 page.
  set beresp.http.Content-Type = "text/html; charset=utf-8";
  set beresp.http.Cache-Control = "no-cache";
  set beresp.http.Retry-After = "{{RETRY_AFTER}}";
{{SECURITY_HEADERS}}
  synthetic(std.fileread("{{UNAVAILABLE_PAGE}}"));
  set beresp.ttl = 0s;
  return (deliver);
}

# Asks once more, with a kept copy allowed (vcl_recv): for a fetch that failed while the origin was deemed up.
sub stale_if_error {
  set req.http.x-stale-ok = "1";
  unset req.http.x-fresh-only;
  return (restart);
}

sub vcl_synth {
  set resp.http.X-Request-Id = req.http.X-Request-Id;
  # A new page's fetch abandoned for its 5xx (vcl_backend_response): once more, with the kept copy allowed.
  if (resp.status == 503 && req.http.x-fresh-only) {
    call stale_if_error;
  }
  if (resp.status == 413 && req.url ~ "^{{MCP_PATH}}(\?|$)") {
    set resp.http.Content-Type = "application/json";
    set resp.http.Cache-Control = "no-store";
    synthetic("""{{BODY_TOO_LARGE}}""");
    return (deliver);
  }
  if (resp.status == 429) {
{{SYNTH_SECURITY_HEADERS}}
    set resp.http.Content-Type = "text/plain; charset=utf-8";
    set resp.http.Cache-Control = "no-store";
    set resp.http.Retry-After = "{{RETRY_AFTER_BUSY}}";
    # And the connection closed after it, as at the front: a client past its share is refused once a connection, not
    # answered again and again (a stranger's 5,000 connections pipelining and reading slowly were each given a refusal
    # for every request they read, and another address's static page went to 22x its p99). A new connection is the
    # client's to pay for, at the rate its firewall allows (docs/operations.md, "The edge"). Varnish closes without
    # lingering: what a pipelining client sent after the refused request draws a reset, which may cost it the answers
    # it has not read yet; a client that waits for each answer loses nothing.
    set resp.http.Connection = "close";
    synthetic("Too many requests: this client has sent more than its share; retry in {{RETRY_AFTER_BUSY}} s." + {"
"});
    return (deliver);
  }
  if (resp.status == 412 || resp.status == 413 || resp.status == 414) {
{{SYNTH_SECURITY_HEADERS}}
    set resp.http.Content-Type = "text/plain; charset=utf-8";
    set resp.http.Cache-Control = "no-store";
    if (resp.status == 412) {
      synthetic("Precondition failed: no entity tag in If-Match is this representation's." + {"
"});
    } elsif (resp.status == 413) {
      synthetic("{{TOO_LARGE}}" + {"
"});
    } else {
      synthetic("URI too long: a request line of 8,000 characters or more names nothing here." + {"
"});
    }
    return (deliver);
  }
}

sub vcl_deliver {
  # The fetch of a new page failed (could not reach a sidecar) while a copy may be kept: once more, the copy allowed.
  if (resp.status >= 500 && req.http.x-fresh-only && !req.http.x-edge-pass) {
    call stale_if_error;
  }
  if (req.http.x-no-language && req.restarts == 0 && resp.http.{{OWN_LANGUAGE_HEADER}} &&
      resp.http.{{OWN_LANGUAGE_HEADER}} != req.http.Accept-Language) {
    set req.http.Accept-Language = resp.http.{{OWN_LANGUAGE_HEADER}};
    return (restart);
  }
  unset resp.http.{{OWN_LANGUAGE_HEADER}};
  # RFC 9110 §13.1.1: If-Match naming no tag of this answer is 412, on a GET too, as the origin answers it; a cached
  # copy answers the same. A weak tag never matches (strong comparison).
  if (req.http.If-Match && req.http.If-Match != "*" && resp.status == 200) {
    if (!resp.http.ETag || !std.strstr(req.http.If-Match, resp.http.ETag) || std.strstr(req.http.If-Match, "W/" + resp.http.ETag)) {
      return (synth(412, "Precondition Failed"));
    }
  }
  # What happened to this request here, for tests, benchmarks and operators: Cache-Status (RFC 9211) names this cache
  # `edge` and says hit (with the seconds of freshness left: negative when a stale copy was served, while the origin
  # fails) or why it went forward (miss, bypass); X-Cache says HIT or MISS in one word.
  if (req.http.x-edge-pass) {
    set resp.http.Cache-Status = "edge; fwd=bypass";
  } elsif (obj.hits > 0 && obj.ttl <= 0s) {
    set resp.http.Cache-Status = "edge; hit; ttl=" + (std.integer(duration=obj.ttl) - 1) + "; detail=stale";
  } elsif (obj.hits > 0) {
    set resp.http.Cache-Status = "edge; hit; ttl=" + std.integer(duration=obj.ttl);
  } else {
    set resp.http.Cache-Status = "edge; fwd=miss";
  }
  if (obj.hits > 0) {
    set resp.http.X-Cache = "HIT";
  } else {
    set resp.http.X-Cache = "MISS";
  }
  # This request's id, not the one of the request that fetched a kept copy.
  set resp.http.X-Request-Id = req.http.X-Request-Id;
  unset resp.http.xkey;
  unset resp.http.CDN-Cache-Control;
  unset resp.http.Via;
  unset resp.http.X-Varnish;
}
