# What bench/vs-fio.sh and bench/pacing.sh share: sourced, not run.
#
# bench_start WHAT: refuses to go on unless root (WHAT says what the
# script sets up), takes the device lock the device tests take (so that
# zram0 is not set up under one of them), installs fio where it is
# missing, and refuses a zram0 already in use.
bench_start() {
  if [ "$(id -u)" != 0 ]; then echo "$(basename "$0") sets up $1: run it as root" >&2; exit 1; fi
  exec 9>/tmp/methodic-test-devices.lock
  flock 9
  if ! command -v fio >/dev/null; then apt-get install -y fio >/dev/null; fi
  if [ "$(cat /sys/block/zram0/disksize)" != 0 ]; then echo "zram0 is in use; not touching it" >&2; exit 1; fi
}

# bench_put_back: detaches $LOOP, unmounts $TMPFS and resets zram0, as
# far as each was set up.
bench_put_back() {
  [ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2>/dev/null || true
  [ -n "${TMPFS:-}" ] && mountpoint -q "$TMPFS" && umount "$TMPFS" || true
  echo 1 > /sys/block/zram0/reset 2>/dev/null || true
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# wanted LABEL: whether ONLY (if set; words|other words) picks the row.
wanted() {
  [ -z "${ONLY:-}" ] && return 0
  local w
  IFS='|' read -ra words <<< "$ONLY"
  for w in "${words[@]}"; do [[ "$1" == *"$w"* ]] && return 0; done
  return 1
}
