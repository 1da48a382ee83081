#!/usr/bin/env bash
# How late methodic's open loop starts I/Os, against the leanest loop this
# host can run and against fio, alternated in one run: at 5000, 20000 and
# 100000 IOPS, QD1 and QD8 (uniform arrivals, 4KiB random reads), on zram
# and on a loop device.
#
#   methodic   io.rate.lateness_p50/p99/max_us: start minus due time, by
#              its own clock, over the record window; the engine it
#              chooses (zram: psync threads; the loop device at QD8:
#              io_uring); and its p99 latency from the due time.
#   minimal    bench/pace-loop.c: QD threads, each its share at uniform due
#              times, an absolute clock_nanosleep at timer slack 1, one
#              4KiB O_DIRECT pread; exact lateness (sorted), no histogram,
#              no engine. What this host's scheduling allows.
#   fio        rate_iops (psync, QD jobs of one I/O, each its share,
#              rate_process=linear); fio reports latency from submission,
#              not lateness, so its p99 latency is shown.
#
# Then an independent check on the loop device at QD1: the block layer's
# queue events (block_bio_queue, the tracepoint blktrace's Q comes from,
# through tracefs on the monotonic clock) give each read's start; the due
# times are a uniform schedule fitted to them (its origin put where the
# least late read was on time, so the figures are a lower bound), and
# lateness is start minus due. The same for fio's rate_iops, which fio
# does not report. methodic's own figures are beside.
#
# Then an A/B: pinning (--pin) against methodic as it runs, or, with
# BASELINE=PATH, another methodic build against this one; the minimal
# loop beside. Last, due times handed to the kernel (bench/pace-uring.rs,
# io_uring timeouts linked to the reads) against the minimal loop. Each row's figures are medians of REPEATS runs; "ratio" is methodic's p99
# lateness over the minimal loop's in the same row. Needs root (zram, a
# loop device, tracefs). Usage: bench/pacing.sh [RUNTIME_S] [REPEATS];
# ONLY=WORDS runs only the rows whose label contains WORDS (ONLY=zram,
# ONLY='QD1|trace', ONLY=ab, ONLY=linked). Takes /tmp/methodic-test-devices.lock, as the device
# tests and bench/vs-fio.sh do.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME=${1:-5}
REPEATS=${2:-3}
RAMP=1
WORK=$(mktemp -d /tmp/methodic-pacing.XXXXXX)
TMPFS=$WORK/tmpfs
LOOP=""
TRACEFS_MOUNTED=""

. bench/common.sh
bench_start "zram, a loop device and block-layer tracing"

cleanup() {
  bench_put_back
  [ -n "${TR_ON:-}" ] && untrace 2>/dev/null || true
  [ -n "$TRACEFS_MOUNTED" ] && umount /sys/kernel/tracing 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap, which puts back zram0,
# the loop device and tracing (bash does not run it when killed outright).
trap 'exit 130' INT TERM

cargo build --release -q
BIN=$PWD/target/release/methodic
cc -O2 -Wall -pthread -o "$WORK/pace-loop" bench/pace-loop.c
cargo build --release -q -p methodic-runtime --example pace-uring
PACE_URING=$PWD/target/release/examples/pace-uring

echo 1073741824 > /sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
mkdir -p "$TMPFS"
mount -t tmpfs -o size=1200M tmpfs "$TMPFS"
dd if=/dev/urandom of="$TMPFS/loop.img" bs=1M count=1024 status=none
LOOP=$(losetup --direct-io=on -f --show "$TMPFS/loop.img")

col() { cut -d' ' -f"$1" "$2" | median; }

# methodic TARGET QD IOPS: "late_p50 late_p99 late_max lat_p99 engine kept"
methodic() {
  printf 'methodology "pacing" version "1"\ntarget { span 100%%; workers 1 }\nworkload w { random; block 4KiB; read 100%% }\nmeasure w qd %s rate %s iops for %ss ramp %ss\n' \
    "$2" "$3" "$RUNTIME" "$RAMP" > "$WORK/p.method"
  rm -rf "$WORK/out"
  "$BIN" run "$WORK/p.method" --target "$1" --destroy "$1" --overwrite --no-ceiling --no-floor --seed 1 ${PIN:-} \
      --format json --out "$WORK/out" 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"][0]; r=s["io"]["rate"]; i=s["io"]
print(round(r["lateness_p50_us"],1), round(r["lateness_p99_us"],1), round(r["lateness_max_us"],1), round(s["summary"]["total"]["latency_us"]["p99"],1), "%s-%dx%d" % (i["engine"], i["threads"], i["depth"]), "kept" if r["kept"] else "missed")'
}

# minimal TARGET QD IOPS: "late_p50 late_p99 late_max lat_p99"
minimal() {
  "$WORK/pace-loop" "$1" "$3" "$2" "$RUNTIME" "$RAMP" | cut -d' ' -f2-
}

# fio_rate TARGET QD IOPS: "iops clat_p99_us"
fio_rate() {
  fio --name=j --filename="$1" --rw=randread --bs=4k --ioengine=psync --iodepth=1 --numjobs="$2" \
      --rate_iops=$(( $3 / $2 )) --rate_process=linear --lat_percentiles=1 \
      --direct=1 --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --group_reporting \
      --randrepeat=0 --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["jobs"][0]["read"]; print(round(d["iops"]), round(d["lat_ns"]["percentile"]["99.000000"]/1000,1))'
}

printf '| target | QD | asked IOPS | methodic late p50 / p99 / max (engine) | minimal loop late p50 / p99 / max | p99 ratio | methodic p99 latency (from due) | minimal p99 latency (from due) | fio p99 latency (from submission) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'

# row TARGET_LABEL TARGET QD IOPS
row() {
  local tlabel=$1 target=$2 qd=$3 iops=$4
  wanted "$tlabel QD$qd $iops" || return 0
  : > "$WORK/m"; : > "$WORK/n"; : > "$WORK/f"
  for _ in $(seq "$REPEATS"); do
    methodic "$target" "$qd" "$iops" >> "$WORK/m"
    minimal "$target" "$qd" "$iops" >> "$WORK/n"
    fio_rate "$target" "$qd" "$iops" >> "$WORK/f"
  done
  local mp50 mp99 mmax mlat engine kept np50 np99 nmax nlat flat
  mp50=$(col 1 "$WORK/m"); mp99=$(col 2 "$WORK/m"); mmax=$(col 3 "$WORK/m"); mlat=$(col 4 "$WORK/m")
  engine=$(cut -d' ' -f5 "$WORK/m" | sort | uniq -c | sort -rn | head -1 | awk '{print $2}')
  kept=$(grep -c ' kept$' "$WORK/m" || true)
  np50=$(col 1 "$WORK/n"); np99=$(col 2 "$WORK/n"); nmax=$(col 3 "$WORK/n"); nlat=$(col 4 "$WORK/n")
  flat=$(col 2 "$WORK/f")
  local ratio=n/a
  # No ratio where the minimal loop started nothing due in its window.
  [ "$np99" != - ] && ratio=$(printf '%.2fx' "$(echo "$mp99 / ($np99 + 0.001)" | bc -l)")
  printf '| %s | %s | %s | %s / %s / %s us (%s, %s of %s kept) | %s / %s / %s us | %s | %s us | %s us | %s us |\n' \
    "$tlabel" "$qd" "$iops" "$mp50" "$mp99" "$mmax" "$engine" "$kept" "$REPEATS" "$np50" "$np99" "$nmax" \
    "$ratio" "$mlat" "$nlat" "$flat"
}

for target in zram loop; do
  dev=/dev/zram0; [ $target = loop ] && dev=$LOOP
  for qd in 1 8; do
    for iops in 5000 20000 100000; do
      row "$target" "$dev" "$qd" "$iops"
    done
  done
done

# The block layer's queue event of each read (the block_bio_queue
# tracepoint, the one blktrace's Q comes from), read through tracefs on
# the monotonic clock: this kernel refuses blktrace's relay files
# (debugfs trace0: Operation not permitted).
TR=/sys/kernel/tracing
if ! [ -e "$TR/trace" ]; then mount -t tracefs none "$TR"; TRACEFS_MOUNTED=1; fi
EV=$TR/events/block/block_bio_queue
LOOP_DEV=$(( $(stat -c '0x%t' "$LOOP") << 20 | $(stat -c '0x%T' "$LOOP") ))
# What tracing was, to put back.
TR_ON=$(cat "$TR/tracing_on"); TR_KB=$(cat "$TR/buffer_size_kb" | grep -o '^[0-9]*')
TR_CLOCK=$(grep -o '\[[a-z0-9_-]*\]' "$TR/trace_clock" | tr -d '[]')
untrace() {
  echo 0 > "$EV/enable"; echo 0 > "$EV/filter"; echo > "$TR/trace"
  echo "$TR_CLOCK" > "$TR/trace_clock"; echo "$TR_KB" > "$TR/buffer_size_kb"; echo "$TR_ON" > "$TR/tracing_on"
}

# trace_lateness TRACE IOPS COMMAND: "p50 p99 max" of lateness from the
# queue events of COMMAND's reads in TRACE, due times a uniform schedule
# fitted to them, the reads due in the ramp left out.
trace_lateness() {
  IOPS=$2 CMD=$3 RAMP=$RAMP python3 - "$1" <<'PY'
import os, re, sys
gap = 1.0 / float(os.environ["IOPS"])
line = re.compile(r"\s(\d+\.\d+): block_bio_queue: \d+,\d+ (\S+) .*\[(.*)\]$")
t = []
for l in open(sys.argv[1]):
    m = line.search(l.rstrip())
    if m and m.group(2).startswith("R") and m.group(3).startswith(os.environ["CMD"]):
        t.append(float(m.group(1)))
t.sort()
if not t:
    print("- - -"); sys.exit()
origin = min(x - k * gap for k, x in enumerate(t))
# The ramp left out by when reads were due (a loop far behind queues few).
ramp = float(os.environ["RAMP"])
late = sorted((x - origin - k * gap) * 1e6 for k, x in enumerate(t) if k * gap >= ramp)
if not late:
    print("- - -"); sys.exit()
q = lambda p: late[min(len(late) - 1, int(p * (len(late) - 1) + 0.5))]
print("%.1f %.1f %.1f" % (q(0.5), q(0.99), late[-1]))
PY
}

# traced NAME COMMAND...: runs COMMAND with the loop device's queue events
# traced into $WORK/trace/NAME; prints what COMMAND printed.
traced() {
  local name=$1; shift
  mkdir -p "$WORK/trace"
  echo mono > "$TR/trace_clock"; echo 65536 > "$TR/buffer_size_kb"; echo > "$TR/trace"
  echo "dev == $LOOP_DEV" > "$EV/filter"; echo 1 > "$EV/enable"; echo 1 > "$TR/tracing_on"
  "$@"
  echo 0 > "$TR/tracing_on"
  cp "$TR/trace" "$WORK/trace/$name"
  untrace
}

echo
printf '| loop device, QD1, uniform | asked IOPS | methodic late p50 / p99 / max, by the block layer | methodic, by its own clock | fio late p50 / p99 / max, by the block layer |\n'
printf '|---|---|---|---|---|\n'
for iops in 5000 20000 100000; do
  wanted "trace $iops" || continue
  : > "$WORK/tm"; : > "$WORK/to"; : > "$WORK/tf"
  for k in $(seq "$REPEATS"); do
    traced "m$k" methodic "$LOOP" 1 "$iops" >> "$WORK/to"
    trace_lateness "$WORK/trace/m$k" "$iops" methodic-worker >> "$WORK/tm"
    traced "f$k" fio_rate "$LOOP" 1 "$iops" >/dev/null
    trace_lateness "$WORK/trace/f$k" "$iops" fio >> "$WORK/tf"
  done
  printf '| trace | %s | %s / %s / %s us | %s / %s / %s us | %s / %s / %s us |\n' "$iops" \
    "$(col 1 "$WORK/tm")" "$(col 2 "$WORK/tm")" "$(col 3 "$WORK/tm")" \
    "$(col 1 "$WORK/to")" "$(col 2 "$WORK/to")" "$(col 3 "$WORK/to")" \
    "$(col 1 "$WORK/tf")" "$(col 2 "$WORK/tf")" "$(col 3 "$WORK/tf")"
done

# A/B: methodic as it runs (A) against a variant (B), the minimal loop
# beside, alternated: B is methodic with --pin (each worker on a CPU of
# its own, round robin), or, with BASELINE=PATH, A is that other methodic
# build and B this one. Late p99 of each, and B over A.
echo
if [ -n "${BASELINE:-}" ]; then ab="$BASELINE / this build"; else ab="unpinned / --pin"; fi
printf '| A/B: zram, uniform (%s) | QD | asked IOPS | A late p99 | B late p99 | minimal loop late p99 | B/A |\n' "$ab"
printf '|---|---|---|---|---|---|---|\n'
for qd in 1 8; do
  for iops in 5000 20000 100000; do
    wanted "ab QD$qd $iops" || continue
    : > "$WORK/a"; : > "$WORK/b"; : > "$WORK/c"
    for _ in $(seq "$REPEATS"); do
      if [ -n "${BASELINE:-}" ]; then
        BIN=$BASELINE methodic /dev/zram0 "$qd" "$iops" >> "$WORK/a"
        methodic /dev/zram0 "$qd" "$iops" >> "$WORK/b"
      else
        methodic /dev/zram0 "$qd" "$iops" >> "$WORK/a"
        PIN=--pin methodic /dev/zram0 "$qd" "$iops" >> "$WORK/b"
      fi
      minimal /dev/zram0 "$qd" "$iops" >> "$WORK/c"
    done
    a=$(col 2 "$WORK/a"); b=$(col 2 "$WORK/b"); c=$(col 2 "$WORK/c")
    printf '| ab | %s | %s | %s us | %s us | %s us | %.2fx |\n' "$qd" "$iops" "$a" "$b" "$c" "$(echo "$b / ($a + 0.001)" | bc -l)"
  done
done

# Due times handed to the kernel (bench/pace-uring.rs): one thread keeps
# QD io_uring timeouts at the due times armed, each linked to its read,
# against the minimal loop, alternated. The kernel starts each read, so
# only the latency from the due time compares (its lateness is not seen).
echo
printf '| due times to the kernel | QD | asked IOPS | minimal loop p99 latency (from due) | linked timeouts p99 latency (from due) | linked/minimal |\n'
printf '|---|---|---|---|---|---|\n'
for target in zram loop; do
  dev=/dev/zram0; [ $target = loop ] && dev=$LOOP
  for row in "1 5000" "8 20000" "8 100000"; do
    set -- $row
    wanted "linked QD$1 $2 on $target" || continue
    : > "$WORK/n"; : > "$WORK/l"
    for _ in $(seq "$REPEATS"); do
      minimal "$dev" "$1" "$2" >> "$WORK/n"
      "$PACE_URING" "$dev" "$2" "$1" "$RUNTIME" "$RAMP" | cut -d' ' -f2- >> "$WORK/l"
    done
    n=$(col 4 "$WORK/n"); l=$(col 4 "$WORK/l")
    printf '| linked %s | %s | %s | %s us | %s us | %.2fx |\n' "$target" "$1" "$2" "$n" "$l" "$(echo "$l / ($n + 0.001)" | bc -l)"
  done
done

echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r), $(fio --version), ${RUNTIME}s a run after a ${RAMP}s ramp, median of $REPEATS"
