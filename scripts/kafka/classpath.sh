#!/usr/bin/env bash
# Prints the broker's Java classpath, resolving pom.xml through Maven when it changed or a jar
# went missing. The list is cached in scripts/kafka/.lib (gitignored); the jars live in ~/.m2.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.lib"
mkdir -p "$cache"
sum="$(sha256sum "$here/pom.xml" | cut -c1-16)"
file="$cache/classpath-$sum.txt"
valid() {
  [[ -s "$file" ]] || return 1
  local jar
  while IFS= read -r jar; do [[ -f "$jar" ]] || return 1; done < <(tr ':' '\n' <"$file")
}
if ! valid; then
  # Concurrent callers (parallel test files) resolve once.
  exec 9>"$cache/.lock"
  flock 9
  if ! valid; then
    mvn -B -q -f "$here/pom.xml" dependency:build-classpath -Dmdep.includeScope=runtime \
      "-Dmdep.outputFile=$file.tmp" >"$cache/mvn.log" 2>&1 || { cat "$cache/mvn.log" >&2; exit 1; }
    mv "$file.tmp" "$file"
  fi
fi
cat "$file"
