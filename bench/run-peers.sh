#!/usr/bin/env bash
# Side-by-side harness: the same workloads on sharray and on its peers (joblib/loky + numpy, Java
# serialization, ISA-L), in one run, peer and sharray alternating pair by pair.
#   bench/run-peers.sh                      # everything (~5-10 min), writes docs/benchmarks.md (generated
#                                           # section), docs/benchmarks-peers.csv, docs/benchmarks-peers.png
#   bench/run-peers.sh --only handoff --runs 7 --warmup 2 --no-docs
# Installs python3-numpy, python3-joblib and libisal2 with apt-get when missing. Uses /usr/bin/python3
# (Debian's, where those packages live), not a python3 found first on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/bench/target/benchmarks.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
PY=/usr/bin/python3

need=()
[ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
[ -x "$PY" ] && "$PY" -c 'import joblib' 2>/dev/null || need+=(python3-joblib)
ldconfig -p | grep -q 'libisal.so.2' || need+=(libisal2)
if ((${#need[@]})); then
  echo "run-peers: installing ${need[*]}" >&2
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -f "$JAR" ] || [ -n "$(find "$ROOT/pom.xml" "$ROOT/config" "$ROOT"/*/pom.xml "$ROOT"/*/src -newer "$JAR" -print -quit 2>/dev/null)" ]; then
  echo "run-peers: building $JAR ..." >&2
  (cd "$ROOT" && mvn -q -B ${MVN_OFFLINE:+-o} -DskipTests -Dmaven.javadoc.skip=true package -pl bench -am) >&2
fi

# the project's JVM flags (config/jvm.flags; "[jdk24+]" lines only on JDK 24 and later)
FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
FLAGS=()
while IFS= read -r line; do
  [ -z "$line" ] && continue
  [[ "$line" == "#"* ]] && continue
  if [[ "$line" == "[jdk24+]"* ]]; then
    ((FEATURE >= 24)) || continue
    line="${line#\[jdk24+\]}"; line="${line# }"
  fi
  FLAGS+=("$line")
done < "$ROOT/config/jvm.flags"

exec "$JAVA" "${FLAGS[@]}" -Xmx3g -Dchronicle.analytics.disable=true -cp "$JAR" \
  dev.sharray.bench.peers.PeerHarness --root "$ROOT" --python "$PY" "$@"
