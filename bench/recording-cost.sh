#!/usr/bin/env bash
# What recording latencies and the series costs methodic, counted in
# instructions (valgrind's callgrind: the same count for the same binary
# and input whatever else the machine does), not in seconds.
#
# For each engine it runs one step of 4KiB random writes until N bytes
# were written, at two sizes, with recording on and off (`--no-latency`),
# on a scratch file in /dev/shm, and prints the user-space instructions an
# I/O of the workers' loop (`worker::run` and all it calls: generator,
# data, engine, clock, recording; not what it does once an interval), as
# the slope between the two sizes so that setting up cancels, and the
# ratio on/off (io_uring: the median of three runs each). Not the whole program's slope: its other threads wake on
# timers, and under valgrind a longer run lasts longer, so their wakings
# would count as I/O. What recording costs once a step (percentiles, the
# HdrHistogram log) is printed apart, and so is what a series interval
# costs: the series interval is set longer than the run, since under
# valgrind a run lasts fifty times longer and its per-second rows would
# be counted fifty times too often against its I/Os.
#
#   bench/recording-cost.sh            # release build first; needs valgrind
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
cargo build --release --quiet
BIN=$PWD/target/release/methodic
# The loop's counts turn on and off at these functions: one the compiler
# inlined away would count nothing, or everything, without a word.
symbols=$(nm -C "$BIN")
for f in worker::run series::Interval::new stats::LatencyTally::drain_into stats::Recorder::merge; do
  grep -q " methodic_runtime::$f\$" <<<"$symbols" \
    || { echo "methodic_runtime::$f is not a symbol of $BIN (inlined?): the loop's counts would be wrong" >&2; exit 1; }
done
WORK=$(mktemp -d /dev/shm/methodic-cost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Instructions of one run: `count WHAT ENGINE QD MIB [--no-latency] [SERIES]`,
# WHAT `loop` for those of `worker::run` and all it calls, `whole` for all.
count() {
  local what=$1 engine=$2 qd=$3 mib=$4 extra=${5:-} series=${6:-} only=()
  # The loop: worker::run, less what it does once an interval (a new
  # interval's histograms, adding the counted latencies to them, adding
  # them to the worker's total): each toggle turns counting over on the
  # way in and back on the way out.
  [ "$what" = loop ] && only=(--toggle-collect='methodic_runtime::worker::run'
    --toggle-collect='methodic_runtime::series::Interval::new'
    --toggle-collect='methodic_runtime::stats::LatencyTally::drain_into'
    --toggle-collect='methodic_runtime::stats::Recorder::merge')
  cat > "$WORK/m.method" <<M
methodology "recording-cost" version "1"
target { span ${mib}MiB; io buffered }
workload w { random; block 4KiB; read 0% }
measure w qd $qd until written ${mib}MiB series ${series:-10min}
M
  rm -rf "$WORK/out"
  valgrind --tool=callgrind "${only[@]}" --callgrind-out-file="$WORK/cg.out" \
    "$BIN" run "$WORK/m.method" --out "$WORK/out" --engine "$engine" --no-ceiling $extra >/dev/null 2>"$WORK/vg.err"
  grep -m1 '^summary:' "$WORK/cg.out" | awk '{print $2}'
}

# The median of REPS runs' counts: `counts REPS ARGS...` (count's ARGS).
# An io_uring worker reaps what has completed, so how many calls its
# I/Os take, each with its fixed cost, varies a little with timing.
counts() {
  local reps=$1; shift
  for _ in $(seq "$reps"); do count "$@"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

printf '| engine, QD | instructions an I/O, recording on | off | on/off | once a step, recording on |\n|---|---|---|---|---|\n'
for point in "psync 1 1" "io-uring 32 3"; do
  set -- $point
  on_a=$(counts "$3" loop "$1" "$2" 32); on_b=$(counts "$3" loop "$1" "$2" 64)
  off_a=$(counts "$3" loop "$1" "$2" 32 --no-latency); off_b=$(counts "$3" loop "$1" "$2" 64 --no-latency)
  whole_on=$(count whole "$1" "$2" 64); whole_off=$(count whole "$1" "$2" 64 --no-latency)
  ios=$(( (64 - 32) * 256 ))
  # Once a step: what recording adds to the whole run beyond the loop, at 64MiB.
  awk -v a="$on_a" -v b="$on_b" -v c="$off_a" -v d="$off_b" -v n="$ios" -v e="$1 QD$2" \
      -v wb="$whole_on" -v wd="$whole_off" \
    'BEGIN { on=(b-a)/n; off=(d-c)/n; once=(wb-b)-(wd-d);
             printf "| %s | %.0f | %.0f | %.3fx | %.2f million instructions |\n", e, on, off, on/off, once/1e6 }'
done

# A series interval's own cost: the same 64MiB run with 10min and with
# 50ms intervals (recording on); the difference over the intervals added.
long=$(count whole psync 1 64)
short=$(count whole psync 1 64 "" 50ms)
rows=$(( $(wc -l < "$WORK/out/series/w-qd1.csv") - 1 ))
if [ "$rows" -lt 2 ]; then
  echo; echo "The 50ms run recorded only $rows interval: too few to price one; run the script again."
else
  awk -v a="$long" -v b="$short" -v n="$rows" \
    'BEGIN { printf "\nA series interval costs %.0f instructions (%d intervals of 50ms under valgrind).\n", (b-a)/(n-1), n }'
fi
