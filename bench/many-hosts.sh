#!/usr/bin/env bash
# What a run on many hosts pays to start its I/O runs, with runs sent to
# the hosts in one fio client session against one session a run. N `fio
# --server` processes on 127.0.0.81 and up (loopback only), each in its
# own folder against its own sparse 256MiB file, run the same 2 x CELLS
# I/O runs (4KiB random reads at QD1, 2, ... CELLS in turn, RECORD_S each,
# no ramp) three ways, alternated, REPEATS times each:
#   rounds:    one rounds step, 2 rounds of CELLS cells (a session a round)
#   sweeps:    two sweeps of CELLS queue depths (a session a sweep, as
#              --batch-time's default sends them)
#   separate:  the same two sweeps with --batch-time 0 (a session a step)
# at the default start margin (1.5 s). Prints, a row for each host count,
# the median wall time of each whole run (the hosts' probe included in
# all), the sessions each made (counted from fio's output files), and
# the start cost each session saved: (separate - sweeps) / (sessions
# saved). Debug build, as docs/many-hosts.md's table.
# Usage: bench/many-hosts.sh [REPEATS] [CELLS] [RECORD_S]; HOSTS='1 8'
# sets the host counts (at most 40).
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${1:-3}
CELLS=${2:-8}
RECORD=${3:-2}
HOSTS=${HOSTS:-1 8}
PORT=8765
WORK=$(mktemp -d /tmp/methodic-hosts.XXXXXX)
SERVERS=()

. bench/common.sh

cleanup() {
  for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v fio >/dev/null; then echo "many-hosts.sh needs fio (apt-get install fio)" >&2; exit 1; fi
most=0
for n in $HOSTS; do [ "$n" -gt "$most" ] && most=$n; done
if [ "$most" -gt 40 ]; then echo "at most 40 hosts on loopback" >&2; exit 1; fi

cargo build -q
BIN=$PWD/target/debug/methodic

# The servers, each waited for until it accepts.
for k in $(seq 1 "$most"); do
  d=$WORK/host$k
  mkdir -p "$d"
  truncate -s 256M "$d/target.img"
  (cd "$d" && exec fio --server=ip:127.0.0.$((80 + k)),$PORT >/dev/null 2>&1) &
  SERVERS+=($!)
done
for k in $(seq 1 "$most"); do
  for _ in $(seq 1 200); do
    (exec 3<>/dev/tcp/127.0.0.$((80 + k))/$PORT) 2>/dev/null && break
    sleep 0.05
  done
done

# hosts_file N: the first N servers, each with its target.
hosts_file() {
  for k in $(seq 1 "$1"); do echo "ip:127.0.0.$((80 + k)),$PORT $WORK/host$k/target.img"; done > "$WORK/hosts$1"
  echo "$WORK/hosts$1"
}

head='methodology "hosts" version "1"
target { span 64MiB }
workload r { random; block 4KiB; read 100% }'
cells=""
qds=""
for c in $(seq 1 "$CELLS"); do
  cells="$cells measure r qd $c for ${RECORD}s;"
  qds="$qds${qds:+, }$c"
done
printf '%s\nrounds {%s } until steady { window 2; max_rounds 2; excursion 100%%; slope 100%%; track r qd %s }\n' \
  "$head" "$cells" "$CELLS" > "$WORK/rounds.method"
sweep="sweep r qd [$qds] ramp 0s record ${RECORD}s"
printf '%s\n%s\n%s\n' "$head" "$sweep" "$sweep" > "$WORK/sweeps.method"
cp "$WORK/sweeps.method" "$WORK/separate.method"

# run WAY N: "SECONDS SESSIONS" of one whole run.
run() {
  local out=$WORK/out-$1-$2
  rm -rf "$out"
  local t0 t1
  t0=$(date +%s.%N)
  local batch=()
  [ "$1" = separate ] && batch=(--batch-time 0)
  if ! "$BIN" run "$WORK/$1.method" --hosts "$(hosts_file "$2")" --out "$out" "${batch[@]}" >/dev/null 2>"$WORK/err"; then
    echo "the $1 run on $2 hosts failed:" >&2
    cat "$WORK/err" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  echo "$(echo "$t1 - $t0" | bc) $(find "$out/fio" -name output.json | wc -l)"
}

echo "| hosts | I/O runs | rounds: wall s | sessions | sweeps: wall s | sessions | separate: wall s | sessions | start cost saved a session |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $HOSTS; do
  : > "$WORK/r"; : > "$WORK/b"; : > "$WORK/s"
  for _ in $(seq 1 "$REPEATS"); do
    run rounds "$n" >> "$WORK/r"
    run sweeps "$n" >> "$WORK/b"
    run separate "$n" >> "$WORK/s"
  done
  r=$(cut -d' ' -f1 "$WORK/r" | median); rs=$(cut -d' ' -f2 "$WORK/r" | median)
  b=$(cut -d' ' -f1 "$WORK/b" | median); bs=$(cut -d' ' -f2 "$WORK/b" | median)
  s=$(cut -d' ' -f1 "$WORK/s" | median); ss=$(cut -d' ' -f2 "$WORK/s" | median)
  saved=$(echo "scale=2; ($s - $b) / ($ss - $bs)" | bc)
  printf '| %s | %s | %.1f | %s | %.1f | %s | %.1f | %s | %s s |\n' "$n" $((2 * CELLS)) "$r" "$rs" "$b" "$bs" "$s" "$ss" "$saved"
done
