#!/usr/bin/env bash
# methodic against fio on the same targets with the same jobs, run
# alternately, REPEATS times each: prints the median IOPS and mean latency
# of both, their ratio, and what recording latencies costs methodic.
#
# fio gets its best engine at each point (psync where a job keeps one I/O
# in flight, else the better of io_uring and libaio, each with its default
# options). Open loop: a job at a fixed rate, uniform and Poisson, against
# fio's rate_iops= (rate_process=poisson for Poisson), the rate each kept
# and their p99 latency. A zipf row: methodic's `random zipf 1.2` against
# fio's random_distribution=zipf:1.2. Targets, set up here and put back
# afterwards:
#   zram0 at 1GiB filled with random data (4KiB random reads, QD1 and QD32)
#   a loop device with direct I/O over a file on tmpfs (4KiB random writes)
#   a file on tmpfs (128KiB sequential writes)
# Needs root. Usage: bench/vs-fio.sh [RUNTIME_S] [REPEATS]; ONLY=WORDS runs
# only the rows whose label contains WORDS (ONLY=zipf: the zipf rows;
# ONLY='zipf|QD1, 1 worker' those and the rows at QD1 on one worker).
# Device tests take /tmp/methodic-test-devices.lock; so does this script,
# so that it does not set up zram0 under one of them.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME=${1:-5}
REPEATS=${2:-3}
RAMP=1
WORK=$(mktemp -d /tmp/methodic-vs-fio.XXXXXX)
TMPFS=$WORK/tmpfs
LOOP=""

. bench/common.sh
bench_start "zram and loop devices"

cleanup() {
  bench_put_back
  rm -rf "$WORK"
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap, which puts zram0 and
# the loop device back (bash does not run it when killed outright).
trap 'exit 130' INT TERM

cargo build --release -q
BIN=$PWD/target/release/methodic

echo 1073741824 > /sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
mkdir -p "$TMPFS"
mount -t tmpfs -o size=2560M tmpfs "$TMPFS"
dd if=/dev/urandom of="$TMPFS/loop.img" bs=1M count=1024 status=none
LOOP=$(losetup --direct-io=on -f --show "$TMPFS/loop.img")
truncate -s 1G "$TMPFS/file.bin"

# methodic NAME TARGET WORKLOAD QD WORKERS [extra flags]: prints "iops mean_us"
methodic() {
  local name=$1 target=$2 workload=$3 qd=$4 workers=$5; shift 5
  cat > "$WORK/$name.method" <<EOF
methodology "vs-fio" version "1"
target { span 100%; workers $workers }
workload w $workload
measure w qd $qd for ${RUNTIME}s ramp ${RAMP}s
EOF
  rm -rf "$WORK/out"
  "$BIN" run "$WORK/$name.method" --target "$target" --destroy "$target" --overwrite --no-ceiling --seed 1 --format json --out "$WORK/out" "$@" 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"][0]; t=s["summary"]["total"]; print(round(t["iops"]), round(t["latency_us"]["mean"],2))'
}

# fio TARGET RW BS DEPTH JOBS ENGINE [extra options]: prints "iops mean_us"
fio_run() {
  fio --name=j --filename="$1" --rw="$2" --bs="$3" --iodepth="$4" --numjobs="$5" --ioengine="$6" "${@:7}" \
      --direct=1 --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --group_reporting \
      --randrepeat=0 --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; d=j["read"] if j["read"]["io_bytes"] else j["write"]; print(round(d["iops"]), round(d["lat_ns"]["mean"]/1000,2))'
}


printf '| job | target | methodic IOPS | fio IOPS (engine) | ratio | methodic mean lat | fio mean lat | recording on/off |\n'
printf '|---|---|---|---|---|---|---|---|\n'

# point LABEL TARGET_LABEL TARGET RW BS QD WORKERS WORKLOAD [fio options]
point() {
  local label=$1 tlabel=$2 target=$3 rw=$4 bs=$5 qd=$6 workers=$7 workload=$8
  local fio_extra=("${@:9}")
  wanted "$label" || return 0
  local depth=$((qd / workers)) engines="io_uring libaio"
  [ "$depth" = 1 ] && engines="psync io_uring libaio"
  : > "$WORK/m"; : > "$WORK/n"
  for e in $engines; do : > "$WORK/f.$e"; done
  for _ in $(seq "$REPEATS"); do
    methodic p "$target" "$workload" "$qd" "$workers" >> "$WORK/m"
    for e in $engines; do fio_run "$target" "$rw" "$bs" "$depth" "$workers" "$e" "${fio_extra[@]}" >> "$WORK/f.$e"; done
    methodic p "$target" "$workload" "$qd" "$workers" --no-latency >> "$WORK/n"
  done
  local m_iops m_lat n_iops best=0 best_e="" best_lat=0
  m_iops=$(cut -d' ' -f1 "$WORK/m" | median); m_lat=$(cut -d' ' -f2 "$WORK/m" | median)
  n_iops=$(cut -d' ' -f1 "$WORK/n" | median)
  for e in $engines; do
    local i l
    i=$(cut -d' ' -f1 "$WORK/f.$e" | median); l=$(cut -d' ' -f2 "$WORK/f.$e" | median)
    if [ "$i" -gt "$best" ]; then best=$i; best_e=$e; best_lat=$l; fi
  done
  printf '| %s | %s | %s | %s (%s) | %.2fx | %s us | %s us | %.3fx |\n' "$label" "$tlabel" "$m_iops" "$best" "$best_e" \
    "$(echo "$m_iops / $best" | bc -l)" "$m_lat" "$best_lat" "$(echo "$m_iops / $n_iops" | bc -l)"
}

point "4KiB randread QD1, 1 worker" zram /dev/zram0 randread 4k 1 1 "{ random; block 4KiB; read 100% }"
point "4KiB randread QD32, 1 worker" zram /dev/zram0 randread 4k 32 1 "{ random; block 4KiB; read 100% }"
point "4KiB randread QD32, 2 workers" zram /dev/zram0 randread 4k 32 2 "{ random; block 4KiB; read 100% }"
point "4KiB randwrite QD32, 1 worker" "loop, direct I/O, tmpfs" "$LOOP" randwrite 4k 32 1 "{ random; block 4KiB; read 0% }"
point "128KiB write QD8, 1 worker" "tmpfs file" "$TMPFS/file.bin" write 128k 8 1 "{ sequential; block 128KiB; read 0% }"
# Skewed offsets: methodic draws zipf exactly and scatters the ranks by a
# permutation, fio approximates it and scatters them by a hash (see
# docs/RESULTS.md, "Where random offsets land"); the same theta, target
# and queue depth. fio keeps no random map for a distribution.
point "4KiB randread QD1, 1 worker, zipf 1.2" zram /dev/zram0 randread 4k 1 1 "{ random zipf 1.2; block 4KiB; read 100% }" \
  --random_distribution=zipf:1.2

# Open loop: methodic at a rate against fio's rate_iops on the same target,
# alternated in the same run. The methodology is compiled to a JSON plan and
# given its rate there, so this runs whether or not the language spells a
# rate yet. fio gets methodic's shape (zram at QD8: psync, 8 threads of one
# I/O, each job rate_iops of its share) and lat_percentiles=1 for the
# latency from submission. fio counts latency from when it submits an I/O,
# methodic from when the I/O was due: at a rate the target keeps up with
# the two agree; where it does not, fio's hides the wait (coordinated
# omission) and methodic's does not, so the rates here are ones zram keeps;
# methodic's p99 of how late its I/Os started (the host's scheduling, which
# fio's latency leaves out) is shown beside.
# methodic_rate TARGET WORKLOAD QD IOPS ARRIVALS: prints "iops p99_us late_p99_us kept"
methodic_rate() {
  local target=$1 workload=$2 qd=$3 iops=$4 arrivals=$5
  printf 'methodology "vs-fio-rate" version "1"\ntarget { span 100%% }\nworkload w %s\nmeasure w qd %s for %ss ramp %ss rate %s iops %s\n' \
    "$workload" "$qd" "$RUNTIME" "$RAMP" "$iops" "$arrivals" > "$WORK/rate.method"
  rm -rf "$WORK/out"
  "$BIN" run "$WORK/rate.method" --target "$target" --destroy "$target" --overwrite --no-ceiling --seed 1 --format json --out "$WORK/out" 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"][0]; t=s["summary"]["total"]; r=s["io"]["rate"]; print(round(t["iops"]), round(t["latency_us"]["p99"],2), round(r["lateness_p99_us"],2), "kept" if r["kept"] else "not-kept")'
}

# fio_rate TARGET RW BS JOBS IOPS PROCESS: prints "iops p99_us"
fio_rate() {
  fio --name=j --filename="$1" --rw="$2" --bs="$3" --iodepth=1 --numjobs="$4" --ioengine=psync \
      --rate_iops=$(( $5 / $4 )) --rate_process="$6" --lat_percentiles=1 \
      --direct=1 --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --group_reporting \
      --randrepeat=0 --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; d=j["read"] if j["read"]["io_bytes"] else j["write"]; print(round(d["iops"]), round(d["lat_ns"]["percentile"]["99.000000"]/1000,2))'
}

echo
printf '| rate job | target | asked IOPS | methodic IOPS (kept) | fio IOPS | ratio | methodic p99 lat | fio p99 lat | ratio | methodic p99 late start |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
# rate_point LABEL TARGET_LABEL TARGET RW BS QD IOPS ARRIVALS WORKLOAD
rate_point() {
  local label=$1 tlabel=$2 target=$3 rw=$4 bs=$5 qd=$6 iops=$7 arrivals=$8 workload=$9
  wanted "$label" || return 0
  local process=linear
  [ "$arrivals" = poisson ] && process=poisson
  : > "$WORK/rm"; : > "$WORK/rf"
  for _ in $(seq "$REPEATS"); do
    methodic_rate "$target" "$workload" "$qd" "$iops" "$arrivals" >> "$WORK/rm"
    fio_rate "$target" "$rw" "$bs" "$qd" "$iops" "$process" >> "$WORK/rf"
  done
  local m_iops m_p99 m_late f_iops f_p99 kept
  m_iops=$(cut -d' ' -f1 "$WORK/rm" | median); m_p99=$(cut -d' ' -f2 "$WORK/rm" | median)
  m_late=$(cut -d' ' -f3 "$WORK/rm" | median)
  f_iops=$(cut -d' ' -f1 "$WORK/rf" | median); f_p99=$(cut -d' ' -f2 "$WORK/rf" | median)
  kept="$(grep -c ' kept$' "$WORK/rm" || true) of $REPEATS kept"
  printf '| %s | %s | %s | %s (%s) | %s | %.3fx | %s us | %s us | %.2fx | %s us |\n' "$label" "$tlabel" "$iops" "$m_iops" "$kept" \
    "$f_iops" "$(echo "$m_iops / $f_iops" | bc -l)" "$m_p99" "$f_p99" "$(echo "$m_p99 / $f_p99" | bc -l)" "$m_late"
}
rate_point "4KiB randread QD8, uniform" zram /dev/zram0 randread 4k 8 20000 uniform "{ random; block 4KiB; read 100% }"
rate_point "4KiB randread QD8, Poisson" zram /dev/zram0 randread 4k 8 20000 poisson "{ random; block 4KiB; read 100% }"

# Two jobs at once: methodic's `together` step against fio's two jobs in
# one run (the second without stonewall, in its own reporting group), each
# job on its own target: 4KiB random reads on zram at QD8 (psync, 8
# threads, as methodic runs zram) beside 128KiB sequential writes on the
# loop device at QD4 (io_uring, one worker). Per job: IOPS and p99 latency,
# and their ratios.
echo
printf '| two jobs at once | job | methodic IOPS | fio IOPS | ratio | methodic p99 lat | fio p99 lat | ratio |\n|---|---|---|---|---|---|---|---|\n'
if wanted together; then
cat > "$WORK/two.method" <<EOF
methodology "vs-fio-two" version "1"
target { span 100%; workers 8 }
workload r { random; block 4KiB; read 100% }
workload w { sequential; block 128KiB; read 0% }
together for ${RUNTIME}s ramp ${RAMP}s {
  job reads r qd 8
  job writes w qd 4 workers 1 device 2
}
EOF
: > "$WORK/tm"; : > "$WORK/tf"
for _ in $(seq "$REPEATS"); do
  rm -rf "$WORK/out"
  "$BIN" run "$WORK/two.method" --target /dev/zram0 --target "$LOOP" --destroy /dev/zram0 --destroy "$LOOP" \
      --overwrite --no-ceiling --seed 1 --format json --out "$WORK/out" 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"][0]; print(" ".join("%d %.2f" % (j["summary"]["total"]["iops"], j["summary"]["total"]["latency_us"]["p99"]) for j in s["jobs"]))' >> "$WORK/tm"
  fio --direct=1 --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --randrepeat=0 --lat_percentiles=1 \
      --output-format=json --group_reporting \
      --name=reads --filename=/dev/zram0 --rw=randread --bs=4k --ioengine=psync --iodepth=1 --numjobs=8 \
      --name=writes --new_group --filename="$LOOP" --rw=write --bs=128k --ioengine=io_uring --iodepth=4 --numjobs=1 2>/dev/null |
    python3 -c 'import json,sys; js=json.load(sys.stdin)["jobs"]; print(" ".join("%d %.2f" % (d["iops"], d["lat_ns"]["percentile"]["99.000000"]/1000) for d in (js[0]["read"], js[1]["write"])))' >> "$WORK/tf"
done
for k in 1 2; do
  name=$([ $k = 1 ] && echo "reads, 4KiB random, zram QD8" || echo "writes, 128KiB sequential, loop QD4")
  mi=$(cut -d' ' -f$((2 * k - 1)) "$WORK/tm" | median); mp=$(cut -d' ' -f$((2 * k)) "$WORK/tm" | median)
  fi_=$(cut -d' ' -f$((2 * k - 1)) "$WORK/tf" | median); fp=$(cut -d' ' -f$((2 * k)) "$WORK/tf" | median)
  printf '| together | %s | %s | %s | %.3fx | %s us | %s us | %.2fx |\n' "$name" "$mi" "$fi_" \
    "$(echo "$mi / $fi_" | bc -l)" "$mp" "$fp" "$(echo "$mp / $fp" | bc -l)"
done
fi

# The same jobs through `methodic crosscheck`: fio gets the step exported
# as methodic ran it (its engine, threads and depth), so the two measure
# the same job; the ratio should be within 10%.
echo
printf '| crosscheck step | target | methodic IOPS | fio IOPS | ratio | engine |\n|---|---|---|---|---|---|\n'
# crosscheck LABEL TARGET_LABEL TARGET WORKLOAD QD WORKERS
crosscheck() {
  local label=$1 tlabel=$2 target=$3 workload=$4 qd=$5 workers=$6
  wanted "$label" || return 0
  printf 'methodology "crosscheck" version "1"\ntarget { span 100%%; workers %s }\nworkload w %s\nmeasure w qd %s for %ss ramp %ss\n' \
    "$workers" "$workload" "$qd" "$RUNTIME" "$RAMP" > "$WORK/cc.method"
  local json
  # Exit 1 means the medians differ by more than 10%: still a result.
  json=$("$BIN" crosscheck "$WORK/cc.method" --step 1 --target "$target" --destroy "$target" --overwrite \
      --runs "$REPEATS" --format json 2>/dev/null) || true
  if [ -z "$json" ]; then echo "| $label | $tlabel | crosscheck failed | | | |"; return; fi
  echo "$json" | LABEL="$label" TLABEL="$tlabel" python3 -c 'import json,os,sys; c=json.load(sys.stdin); print("| %s | %s | %d | %d | %.3fx | %s |" % (os.environ["LABEL"], os.environ["TLABEL"], c["methodic_median"], c["fio_median"], c["ratio"], c["engine"]))'
}
crosscheck "4KiB randread QD32, 1 worker" zram /dev/zram0 "{ random; block 4KiB; read 100% }" 32 1
crosscheck "4KiB randwrite QD32, 1 worker" "loop, direct I/O, tmpfs" "$LOOP" "{ random; block 4KiB; read 0% }" 32 1
crosscheck "128KiB write QD8, 1 worker" "tmpfs file" "$TMPFS/file.bin" "{ sequential; block 128KiB; read 0% }" 8 1
# The export carries the distribution (random_distribution=zipf:1.2).
crosscheck "4KiB randread QD32, 1 worker, zipf 1.2" zram /dev/zram0 "{ random zipf 1.2; block 4KiB; read 100% }" 32 1

echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r), $(fio --version), ${RUNTIME}s a run after a ${RAMP}s ramp, median of $REPEATS"
