#!/usr/bin/env bash
# Prints the runtime classpath of a Maven descriptor, cached in a file keyed by the inputs' hash
# and rebuilt when the file or one of its jars is missing (jars live in ~/.m2). Concurrent callers
# (parallel test files) build once. Used by scripts/kafka (the broker) and scripts/jdbc (a client).
#
#   scripts/maven-classpath.sh POM CACHE_DIR "GOALS" [INPUT...]
#
# GOALS run before dependency:build-classpath ("" for none, "compile" to build the descriptor's
# own sources into CACHE_DIR/classes); INPUTs are hashed with POM to name the cache file.
set -euo pipefail
pom="$1" cache="$2" goals="$3"
shift 3
mkdir -p "$cache"
sum="$(cat "$pom" "$@" | sha256sum | cut -c1-16)"
file="$cache/classpath-$sum.txt"
valid() {
  [[ -s "$file" ]] || return 1
  local jar
  while IFS= read -r jar; do [[ -e "$jar" ]] || return 1; done < <(tr ':' '\n' <"$file")
}
if ! valid; then
  exec 9>"$cache/.lock"
  flock 9
  if ! valid; then
    # shellcheck disable=SC2086 # GOALS is a word list
    mvn -B -q -f "$pom" $goals dependency:build-classpath -Dmdep.includeScope=runtime \
      "-Dmdep.outputFile=$file.tmp" >"$cache/mvn.log" 2>&1 || { cat "$cache/mvn.log" >&2; exit 1; }
    mv "$file.tmp" "$file"
  fi
fi
cat "$file"
