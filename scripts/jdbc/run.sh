#!/usr/bin/env bash
# Runs scripts/jdbc's JdbcQuery (the official ClickHouse JDBC driver, pinned in pom.xml) with
# the given arguments. Builds it with Maven when pom.xml or the source changed; the driver's
# jars stay in ~/.m2, the classes and the resolved classpath in scripts/jdbc/target (gitignored).
#
#   scripts/jdbc/run.sh <jdbc url> <user> <password> <sql with ?> [parameters...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$here/target"
build() { "$here/../maven-classpath.sh" "$here/pom.xml" "$target" compile "$here"/src/main/java/chatlytics/*.java; }
classpath="$(build)"
# The classes are compiled with the classpath: a cleaned target/classes needs a new build.
if [[ ! -f "$target/classes/chatlytics/JdbcQuery.class" ]]; then
  rm -f "$target"/classpath-*.txt
  classpath="$(build)"
fi
exec java -cp "$target/classes:$classpath" chatlytics.JdbcQuery "$@"
