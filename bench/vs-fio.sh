#!/usr/bin/env bash
# methodic against fio on the same targets with the same jobs, run
# alternately, REPEATS times each: prints the median IOPS and mean latency
# of both, their ratio, and what recording latencies costs methodic.
#
# fio gets its best engine at each point (psync where a job keeps one I/O
# in flight, else the better of io_uring and libaio, each with its default
# options). Targets, set up here and put back afterwards:
#   zram0 at 1GiB filled with random data (4KiB random reads, QD1 and QD32)
#   a loop device with direct I/O over a file on tmpfs (4KiB random writes)
#   a file on tmpfs (128KiB sequential writes)
# Needs root. Usage: bench/vs-fio.sh [RUNTIME_S] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME=${1:-5}
REPEATS=${2:-3}
RAMP=1
WORK=$(mktemp -d /tmp/methodic-vs-fio.XXXXXX)
TMPFS=$WORK/tmpfs
LOOP=""

if [ "$(id -u)" != 0 ]; then echo "vs-fio.sh sets up zram and loop devices: run it as root" >&2; exit 1; fi
if ! command -v fio >/dev/null; then apt-get install -y fio >/dev/null; fi
if [ "$(cat /sys/block/zram0/disksize)" != 0 ]; then echo "zram0 is in use; not touching it" >&2; exit 1; fi

cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  mountpoint -q "$TMPFS" && umount "$TMPFS" || true
  echo 1 > /sys/block/zram0/reset 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

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

# fio TARGET RW BS DEPTH JOBS ENGINE: prints "iops mean_us"
fio_run() {
  fio --name=j --filename="$1" --rw="$2" --bs="$3" --iodepth="$4" --numjobs="$5" --ioengine="$6" \
      --direct=1 --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --group_reporting \
      --randrepeat=0 --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; d=j["read"] if j["read"]["io_bytes"] else j["write"]; print(round(d["iops"]), round(d["lat_ns"]["mean"]/1000,2))'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '| job | target | methodic IOPS | fio IOPS (engine) | ratio | methodic mean lat | fio mean lat | recording on/off |\n'
printf '|---|---|---|---|---|---|---|---|\n'

# point LABEL TARGET_LABEL TARGET RW BS QD WORKERS WORKLOAD
point() {
  local label=$1 tlabel=$2 target=$3 rw=$4 bs=$5 qd=$6 workers=$7 workload=$8
  local depth=$((qd / workers)) engines="io_uring libaio"
  [ "$depth" = 1 ] && engines="psync io_uring libaio"
  : > "$WORK/m"; : > "$WORK/n"
  for e in $engines; do : > "$WORK/f.$e"; done
  for _ in $(seq "$REPEATS"); do
    methodic p "$target" "$workload" "$qd" "$workers" >> "$WORK/m"
    for e in $engines; do fio_run "$target" "$rw" "$bs" "$depth" "$workers" "$e" >> "$WORK/f.$e"; done
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

# The same jobs through `methodic crosscheck`: fio gets the step exported
# as methodic ran it (its engine, threads and depth), so the two measure
# the same job; the ratio should be within 10%.
echo
printf '| crosscheck step | target | methodic IOPS | fio IOPS | ratio | engine |\n|---|---|---|---|---|---|\n'
# crosscheck LABEL TARGET_LABEL TARGET WORKLOAD QD WORKERS
crosscheck() {
  local label=$1 tlabel=$2 target=$3 workload=$4 qd=$5 workers=$6
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

echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r), $(fio --version), ${RUNTIME}s a run after a ${RAMP}s ramp, median of $REPEATS"
