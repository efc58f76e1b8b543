#!/usr/bin/env bash
# Runs scripts/jdbc's JdbcQuery (the official ClickHouse JDBC driver, pinned in pom.xml) with
# the given arguments. Builds it with Maven when pom.xml or the source changed; the driver's
# jars stay in ~/.m2, the classes and the resolved classpath in scripts/jdbc/target (gitignored).
#
#   scripts/jdbc/run.sh <jdbc url> <user> <password> <sql with ?> [parameters...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$here/target"
mkdir -p "$target"
sum="$(cat "$here/pom.xml" "$here"/src/main/java/chatlytics/*.java | sha256sum | cut -c1-16)"
cp_file="$target/classpath-$sum.txt"
valid() {
  [[ -s "$cp_file" && -f "$target/classes/chatlytics/JdbcQuery.class" ]] || return 1
  local jar
  while IFS= read -r jar; do [[ -f "$jar" ]] || return 1; done < <(tr ':' '\n' <"$cp_file")
}
if ! valid; then
  # Parallel callers build once.
  exec 9>"$target/.lock"
  flock 9
  if ! valid; then
    mvn -B -q -f "$here/pom.xml" compile dependency:build-classpath -Dmdep.includeScope=runtime \
      "-Dmdep.outputFile=$cp_file.tmp" >"$target/mvn.log" 2>&1 || { cat "$target/mvn.log" >&2; exit 1; }
    mv "$cp_file.tmp" "$cp_file"
  fi
  exec 9>&-
fi
exec java -cp "$target/classes:$(cat "$cp_file")" chatlytics.JdbcQuery "$@"
