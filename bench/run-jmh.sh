#!/usr/bin/env bash
# Runs the JMH benchmarks: bench/run-jmh.sh [regex] [JMH options]
#   bench/run-jmh.sh                                   # everything, with the defaults in the annotations
#   bench/run-jmh.sh OpenRelease -wi 2 -i 3 -f 1 -w 1s -r 1s
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 bench/run-jmh.sh ElementAccess
# Builds bench/target/benchmarks.jar when sources changed; forked JVMs get config/jvm.flags through
# dev.sharray.bench.JmhLauncher. Results: console, and JSON in bench/target/jmh-result-jdk<N>.json.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/bench/target/benchmarks.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

if [ ! -f "$JAR" ] || [ -n "$(find "$ROOT/pom.xml" "$ROOT/config" "$ROOT"/*/pom.xml "$ROOT"/*/src -newer "$JAR" -print -quit 2>/dev/null)" ]; then
  echo "run-jmh: building $JAR ..." >&2
  (cd "$ROOT" && mvn -q -B ${MVN_OFFLINE:+-o} -DskipTests -Dmaven.javadoc.skip=true package -pl bench -am) >&2
fi

FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
EXTRA=()
if [[ " $* " != *" -rff "* ]]; then
  EXTRA=(-rf json -rff "$ROOT/bench/target/jmh-result-jdk$FEATURE.json")
fi
HOST=(); ((FEATURE >= 24)) && HOST=(--sun-misc-unsafe-memory-access=allow)   # quiets the host JVM; forks get config/jvm.flags
exec "$JAVA" "${HOST[@]}" -cp "$JAR" dev.sharray.bench.JmhLauncher "${EXTRA[@]}" "$@"
