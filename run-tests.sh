#!/usr/bin/env bash
# Installs what the tests need (Debian packages: numpy for .npy interop, ISA-L for codec
# cross-checks, strace for injected system-call faults) and runs the whole test suite on the
# JDK in JAVA_HOME (or the default one).
set -euo pipefail
cd "$(dirname "$0")"

need=()
/usr/bin/python3 -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
ldconfig -p | grep -q 'libisal.so.2' || need+=(libisal2)
command -v strace >/dev/null || need+=(strace)
if ((${#need[@]})); then
  echo "run-tests: installing ${need[*]}" >&2
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

java -version 2>&1 | head -1
exec mvn -B verify "$@"
