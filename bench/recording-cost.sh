#!/usr/bin/env bash
# What recording latencies and the series costs methodic, counted in
# instructions (valgrind's callgrind: the same count for the same binary
# and input whatever else the machine does), not in seconds.
#
# For each engine it runs one step of 4KiB random writes until N bytes
# were written, at two sizes, with recording on and off (`--no-latency`),
# on a scratch file in /dev/shm, and prints the user-space instructions an
# I/O (the slope between the two sizes, so that start-up and the manifest
# cancel out) and the ratio on/off. The series interval is set longer
# than the run: under valgrind a run lasts fifty times longer, and its
# per-second series rows would be counted fifty times too often against
# its I/Os; what a series interval costs is printed apart, per interval.
#
#   bench/recording-cost.sh            # release build first; needs valgrind
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
cargo build --release --quiet
BIN=$PWD/target/release/methodic
WORK=$(mktemp -d /dev/shm/methodic-cost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Instructions of one run: `count ENGINE QD MIB [--no-latency]`.
count() {
  local engine=$1 qd=$2 mib=$3 extra=${4:-} series=${5:-}
  cat > "$WORK/m.method" <<M
methodology "recording-cost" version "1"
target { span ${mib}MiB; io buffered }
workload w { random; block 4KiB; read 0% }
measure w qd $qd until written ${mib}MiB series ${series:-10min}
M
  rm -rf "$WORK/out"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$BIN" run "$WORK/m.method" --out "$WORK/out" --engine "$engine" --no-ceiling $extra >/dev/null 2>"$WORK/vg.err"
  grep -m1 '^summary:' "$WORK/cg.out" | awk '{print $2}'
}

printf '| engine, QD | instructions an I/O, recording on | off | on/off |\n|---|---|---|---|\n'
for point in "psync 1" "io-uring 32"; do
  set -- $point
  on_a=$(count "$1" "$2" 32); on_b=$(count "$1" "$2" 64)
  off_a=$(count "$1" "$2" 32 --no-latency); off_b=$(count "$1" "$2" 64 --no-latency)
  ios=$(( (64 - 32) * 256 ))
  awk -v a="$on_a" -v b="$on_b" -v c="$off_a" -v d="$off_b" -v n="$ios" -v e="$1 QD$2" \
    'BEGIN { on=(b-a)/n; off=(d-c)/n; printf "| %s | %.0f | %.0f | %.3fx |\n", e, on, off, on/off }'
done

# A series interval's own cost: the same 64MiB run with 10min and with
# 100ms intervals (recording on); the difference over the intervals added.
long=$(count psync 1 64)
short=$(count psync 1 64 "" 100ms)
rows=$(( $(wc -l < "$WORK/out/series/"*.csv) - 1 ))
awk -v a="$long" -v b="$short" -v n="$rows" \
  'BEGIN { printf "\nA series interval costs %.0f instructions (%d intervals of 100ms under valgrind).\n", (b-a)/(n-1), n }'
