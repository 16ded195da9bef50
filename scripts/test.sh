#!/usr/bin/env bash
# `npm test`: the system programs checked, Astro's generated types written, then the type check and the lint beside
# the whole vitest run (they read files, and the tests leave CPU idle while they wait on servers and browsers: run one
# after the other, the checks were 41 s of a fresh clone's CI before a test began, #37). Every step runs to its end;
# the checks' output is shown after the tests', and the command fails if any step did. Arguments go to vitest.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh --check || exit 1
# The content collections' types (.astro/), which tsc and ESLint read, before the tests' build writes beside them.
npx astro sync > /dev/null || exit 1
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
npx tsc --noEmit > "$logs/typecheck" 2>&1 &
typecheck=$!
npm run --silent lint > "$logs/lint" 2>&1 &
lint=$!
npx vitest run "$@"
tests=$?
failed=0
for step in typecheck lint; do
  if wait "${!step}"; then
    echo "$step: passed"
  else
    failed=1
    echo "$step: FAILED"
    cat "$logs/$step"
  fi
done
exit $((tests != 0 || failed))
