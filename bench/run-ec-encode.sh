#!/usr/bin/env bash
# `sharray ec encode` of a 1 GiB file side by side with writing the same shard files alone (issue 6):
#   bench/run-ec-encode.sh [--runs N] [--size BYTES] [--dir DIR]
# Each round runs, in this order and after `sync` (so no run pays for another's dirty pages):
#   write-only   coreutils writes the 14 files of RS(10,4): split -n 10 (data) + head -c of zeros (parity)
#   encode       ./sharray ec encode FILE -k 10 -m 4 --workers 2
#   threads      the same with --threads (the coding on threads in the CLI JVM, no worker JVMs)
#   fixed        ./sharray ec encode of a 1,000-byte file: JVM, pool start-up and shutdown alone
#   rss-quarter  ./sharray ec encode of a file a quarter of the size (peak RSS must stay flat)
# Prints the medians, the throughput ratios and peak RSS (GNU time: the largest of the process and the children it waited for). Needs /usr/bin/time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=5
SIZE=$(( (1 << 30) + 12345 ))
DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--size BYTES] [--dir DIR]" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "run-ec-encode: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
OWN_DIR=""
if [ -z "$DIR" ]; then
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/sharray-ec-bench.XXXXXX")"
  OWN_DIR="$DIR"
fi
trap '[ -n "$OWN_DIR" ] && rm -rf "$OWN_DIR"' EXIT

IN="$DIR/in.bin"; QUARTER="$DIR/quarter.bin"; TINY="$DIR/tiny.bin"; OUT="$DIR/out"
[ "$(stat -c %s "$IN" 2>/dev/null || echo 0)" = "$SIZE" ] || head -c "$SIZE" /dev/urandom > "$IN"
head -c $((SIZE / 4)) "$IN" > "$QUARTER"
head -c 1000 "$IN" > "$TINY"
cat "$IN" > /dev/null  # page cache warm for every contender
"$ROOT/sharray" --help > /dev/null 2>&1  # builds and trains the CLI's class-data archive once

SHARD=$(( (SIZE + 9) / 10 ))
declare -A WALL
timed() {  # name command...: appends wall seconds and peak RSS (KB) of one run
  local name="$1"; shift
  rm -rf "$OUT" "$DIR"/x_* "$DIR"/p_*; sync
  /usr/bin/time -o "$DIR/time.txt" -f "%e %M" "$@" > /dev/null 2>&1 || { echo "run-ec-encode: $name failed: $*" >&2; exit 1; }
  WALL[$name]+="$(tail -1 "$DIR/time.txt") "
}
write_only() {
  split -n 10 "$IN" "$DIR/x_"
  for p in 1 2 3 4; do head -c "$SHARD" /dev/zero > "$DIR/p_$p"; done
}
export -f write_only; export IN DIR SHARD

for ((r = 1; r <= RUNS; r++)); do
  timed write-only bash -c write_only
  timed encode "$ROOT/sharray" ec encode "$IN" -k 10 -m 4 --workers 2 -o "$OUT" --quiet
  timed threads "$ROOT/sharray" ec encode "$IN" -k 10 -m 4 --workers 2 --threads -o "$OUT" --quiet
  timed fixed "$ROOT/sharray" ec encode "$TINY" -k 10 -m 4 --workers 2 -o "$OUT" --quiet
  timed rss-quarter "$ROOT/sharray" ec encode "$QUARTER" -k 10 -m 4 --workers 2 -o "$OUT" --quiet
  echo "round $r/$RUNS done" >&2
done
rm -rf "$OUT" "$DIR"/x_* "$DIR"/p_*

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { local name="$1" field="$2"; echo "${WALL[$name]}" | tr ' ' '\n' | grep -v '^$' | paste - - | cut -f"$field" | tr '\n' ' '; }
W() { col "$1" 1 | median; }
M() { col "$1" 2 | median; }

GIB=$(awk -v s="$SIZE" 'BEGIN {printf "%.2f", s / 1073741824}')
echo
echo "ec encode RS(10,4) of $GIB GiB, median of $RUNS runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(java -version 2>&1 | head -1))"
printf '%-12s %9s %10s %12s\n' "run" "wall s" "GB/s" "peak RSS MB"
for n in write-only encode threads fixed rss-quarter; do
  w=$(W "$n"); m=$(M "$n")
  bytes=$SIZE; [ "$n" = fixed ] && bytes=1000; [ "$n" = rss-quarter ] && bytes=$((SIZE / 4))
  printf '%-12s %9.2f %10.2f %12.0f\n' "$n" "$w" "$(awk -v b="$bytes" -v w="$w" 'BEGIN {print b / w / 1e9}')" "$(awk -v m="$m" 'BEGIN {print m / 1024}')"
done
awk -v wo="$(W write-only)" -v e="$(W encode)" -v t="$(W threads)" -v f="$(W fixed)" 'BEGIN {
  printf "encode throughput / write-only throughput: %.0f %% end to end (bar >= 70 %%)\n", 100 * wo / e
  printf "  the same without the fixed start-up and shutdown (encode - fixed): %.0f %%\n", 100 * wo / (e - f)
  printf "  --threads (no worker JVMs): %.0f %%\n", 100 * wo / t
}'
echo "peak RSS of the CLI JVM, 1/4 size vs full size: $(awk -v a="$(M rss-quarter)" -v b="$(M encode)" 'BEGIN {printf "%.0f vs %.0f MB", a / 1024, b / 1024}')"
