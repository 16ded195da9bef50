#!/usr/bin/env bash
# The system programs the tests drive: Chromium (browser tests), xmllint (sitemap XSD), Java (the Nu HTML Checker),
# wrk (benchmarks), nginx with its njs and brotli modules (the front, and the benchmarks' baseline), Varnish with
# varnish-modules (the edge), PostgreSQL's server binaries (the data tier), systemd-analyze and systemd-socket-activate
# (the units in deploy/, an upgrade on a socket handed over), Prometheus's promtool (the alert rules), and podman, runc,
# mmdebstrap and podman-compose (the container image, the Kubernetes manifests and the compose file), and nftables
# (the front's firewall).
#   npm run setup                 installs what is missing with apt-get (as root on Debian), else says what to install
#   bash scripts/system-packages.sh --check     installs nothing: names what is missing and fails (npm test's first step)
#   bash scripts/system-packages.sh --content   installs only what `npm run check:build` needs (xmllint, Java): the
#                                               publish workflow's content-only path
set -euo pipefail

mode="${1:-install}"
missing=()
if [ "$mode" = --content ]; then
  command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
  command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
else
command -v chromium >/dev/null 2>&1 || [ -x "${CHROMIUM_PATH:-/nonexistent}" ] || missing+=(chromium)
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
# For `npm run bench` (and its short soak in CI): the load generator and the nginx baseline.
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
# The front (deploy/nginx.conf) negotiates with njs and serves the build's .br files.
[ -f /usr/lib/nginx/modules/ngx_http_js_module.so ] || missing+=(libnginx-mod-http-js)
[ -f /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || missing+=(libnginx-mod-http-brotli-static)
# The edge (deploy/edge.vcl): Varnish with the xkey module; the tests run their own varnishd on loopback.
command -v varnishd >/dev/null 2>&1 || [ -x /usr/sbin/varnishd ] || missing+=(varnish)
compgen -G '/usr/lib/*/varnish/vmods/libvmod_xkey.so' >/dev/null || missing+=(varnish-modules)
# A PostgreSQL primary and standby for the data-tier suites (the tests start their own; no server is left running).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql-15)
# systemd-analyze verifies the units in deploy/ (test/unit/systemd.test.ts); systemd-socket-activate holds the socket
# an upgrade hands over (test/faults/upgrade.test.ts). Both are Debian's systemd package.
{ command -v systemd-analyze >/dev/null 2>&1 && command -v systemd-socket-activate >/dev/null 2>&1; } || missing+=(systemd)
# promtool checks the alert rules in deploy/prometheus/ and runs their tests (test/unit/alerts.test.ts).
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# The release tier (#50): podman builds and runs the image (with runc: deploy/image/containers.conf) and plays the
# Kubernetes manifests; mmdebstrap makes the image's Debian base, since no image registry is reachable.
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
# The compose file for one machine (deploy/compose.yaml, issue 61), played by test/release/compose.test.ts.
command -v podman-compose >/dev/null 2>&1 || missing+=(podman-compose)
# The front's firewall (issue 60): nftables holds each address to its share of new connections (test/front/firewall.test.ts).
[ -x /usr/sbin/nft ] || missing+=(nftables)
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$mode" = --check ]; then
  echo "The tests need these system packages: ${missing[*]}" >&2
  echo "Install them with: npm run setup (as root on Debian; or apt-get install ${missing[*]})." >&2
  exit 1
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing system packages the tests need: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The tests need these system packages: ${missing[*]}" >&2
  echo "Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}), or set CHROMIUM_PATH to a Chromium binary." >&2
  exit 1
fi
