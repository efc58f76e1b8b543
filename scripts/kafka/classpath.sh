#!/usr/bin/env bash
# Prints the broker's Java classpath, resolving pom.xml through Maven when it changed or a jar
# went missing. The list is cached in scripts/kafka/.lib (gitignored); the jars live in ~/.m2.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../maven-classpath.sh" "$here/pom.xml" "$here/.lib" ""
