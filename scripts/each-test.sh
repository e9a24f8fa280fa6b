#!/usr/bin/env bash
# Runs each test of one file in a process of its own, under a deadline, so that a test that hangs
# is named. Usage: bash scripts/each-test.sh FILE [NAME-FILTER] [SECONDS]
set -u
file=$1 filter=${2:-} limit=${3:-20}
list=$(mktemp)
npx vitest list "$file" --json="$list" > /dev/null 2>&1
node -e 'for (const t of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(t.name)' "$list" |
  grep -F -- "$filter" |
  while IFS= read -r name; do
    pattern=$(printf '%s' "${name// > / }" | sed 's/[][\\.*^$()+?{}|]/\\&/g')
    started=$SECONDS
    timeout "$limit" npx vitest run "$file" -t "^${pattern}\$" > /dev/null 2>&1
    rc=$?
    verdict=ok
    [[ $rc -eq 124 ]] && verdict=HUNG
    [[ $rc -ne 0 && $rc -ne 124 ]] && verdict="failed ($rc)"
    printf '%-10s %3ss  %s\n' "$verdict" $((SECONDS - started)) "$name"
  done
rm -f "$list"
