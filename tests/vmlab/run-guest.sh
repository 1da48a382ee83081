#!/usr/bin/env bash
# run-guest.sh SCRIPT [ARGS...]: boots a throw-away guest of the drive lab
# and runs SCRIPT with bash inside it; exits with SCRIPT's status (125
# when the guest never reported one: it hung, crashed or timed out).
#
# The guest: QEMU (q35, TCG: this host's KVM cannot run a stock kernel),
# Debian's generic kernel (build-guest.sh), three drives under their real
# kernel drivers, each on a fresh sparse image:
#   /dev/nvme0n1  NVMe (serial TESTSERIAL01; NVME_OPTS adds ",k=v" options),
#                 behind a PCIe root port so that it has a link
#   /dev/sda      SATA on the q35 AHCI controller (SATASERIAL01)
#   /dev/sdb      SCSI on virtio-scsi (SCSISERIAL01)
# and with NVME_EXTRA=N, N more NVMe drives (TESTSERIAL02, ...; the
# kernel numbers controllers as it finds them: look drives up by serial),
# and the host's root shared read-only, so SCRIPT runs the host's tools
# (the guest's /tmp, /run, /var/tmp and /root are its own tmpfs: a binary
# built in a checkout under /tmp goes in through the working folder).
# SCRIPT's working folder (/tmp/job inside) is a read-write share
# of a host folder: $JOB when set (kept), else a temporary one (removed).
# Settings: MEM (1G), SMP (2), CPU (qemu64: TCG emulates its plain
# x86-64 faster than `max`'s vector extensions, about a fifth off the drive
# lab's test), TB_SIZE (TCG's translation cache, MiB), DISK_SIZE (1G),
# NVME_EXTRA (0), TIMEOUT (600 s, each boot), BOOT_TIMEOUT (60 s until
# the guest's init runs: about 2 s of guest time, 6 s here), BOOT_TRIES
# (2 boots at most when one hangs before init), LOG
# (the console, default $JOB/console.log), VMLAB_DIR.
set -uo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: $0 SCRIPT [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
D=${VMLAB_DIR:-$HOME/.cache/methodic-vmlab}
"$here/build-guest.sh" >&2 || exit 2
SCRIPT=$1; shift
MEM=${MEM:-1G}; SMP=${SMP:-2}; DISK_SIZE=${DISK_SIZE:-1G}; TIMEOUT=${TIMEOUT:-600}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-60}; BOOT_TRIES=${BOOT_TRIES:-2}
if [ -n "${JOB:-}" ]; then mkdir -p "$JOB"; keep=1; else JOB=$(mktemp -d "$D/job.XXXXXX"); keep=0; fi
IMG=$(mktemp -d "$D/img.XXXXXX")
LOG=${LOG:-$JOB/console.log}
cleanup() { rm -rf "$IMG"; [ "$keep" = 1 ] || rm -rf "$JOB"; }
trap cleanup EXIT
rm -f "$JOB/.exit_status"
{ printf 'set -- '; printf '%q ' "$@"; echo; cat "$SCRIPT"; } > "$JOB/script.sh"
NVME_EXTRA=${NVME_EXTRA:-0}
EXTRA=()
for i in $(seq 1 "$NVME_EXTRA"); do
  truncate -s "$DISK_SIZE" "$IMG/nvme$i.img"
  EXTRA+=(-drive "file=$IMG/nvme$i.img,if=none,id=n$i,format=raw,discard=unmap"
    -device "pcie-root-port,id=rp$i,chassis=$((i + 1))"
    -device "nvme,id=nvme$i,serial=TESTSERIAL0$((i + 1)),drive=n$i,bus=rp$i${NVME_OPTS:-}")
done
for d in nvme0 sata0 scsi0; do truncate -s "$DISK_SIZE" "$IMG/$d.img"; done
QEMU=(qemu-system-x86_64 -M q35 -accel tcg,thread=multi${TB_SIZE:+,tb-size=$TB_SIZE} -cpu "${CPU:-qemu64}" -m "$MEM" -smp "$SMP"
  -display none -monitor none -no-reboot -nic none
  -chardev stdio,id=con0,signal=off -serial chardev:con0
  -kernel "$D/guest/vmlinuz" -initrd "$D/guest/initramfs.cpio.gz"
  -append "console=ttyS0 loglevel=6 panic=-1 mitigations=off vmlab_disks=$((3 + NVME_EXTRA))"
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$JOB,mount_tag=job,security_model=none,multidevs=remap"
  -drive "file=$IMG/nvme0.img,if=none,id=n0,format=raw,discard=unmap"
  -device pcie-root-port,id=rp0,chassis=1,x-speed=8,x-width=4
  -device "nvme,id=nvme0,serial=TESTSERIAL01,drive=n0,bus=rp0${NVME_OPTS:-}"
  -drive "file=$IMG/sata0.img,if=none,id=s0,format=raw,discard=unmap"
  -device ide-hd,drive=s0,bus=ide.0,serial=SATASERIAL01,model=QEMU-SATA-TEST
  -device virtio-scsi-pci,id=scsi0
  -drive "file=$IMG/scsi0.img,if=none,id=c0,format=raw,discard=unmap"
  -device scsi-hd,drive=c0,bus=scsi0.0,serial=SCSISERIAL01,vendor=QEMUTEST,product=SCSI-TEST
  "${EXTRA[@]}")
# One boot: qemu in the background, watched until the guest's init says
# it was reached; a boot that does not get there within BOOT_TIMEOUT is
# stopped (status 124, as timeout's). About one boot in a few dozen
# under TCG hangs in the kernel before init with nothing on the console;
# such a boot ran none of SCRIPT, so it is booted again (BOOT_TRIES in
# all), its console kept beside the log as LOG.hungN and said on stderr.
boot() {
  timeout -k 5 "$TIMEOUT" "${QEMU[@]}" </dev/null > "$LOG" 2>&1 &
  local q=$! tenths=0
  while kill -0 "$q" 2>/dev/null; do
    if grep -q '@@VMLAB init' "$LOG" 2>/dev/null; then wait "$q"; return; fi
    if [ "$tenths" -ge $((BOOT_TIMEOUT * 10)) ]; then
      kill "$q" 2>/dev/null; wait "$q"; return 124
    fi
    sleep 0.1; tenths=$((tenths + 1))
  done
  wait "$q"
}
for try in $(seq 1 "$BOOT_TRIES"); do
  boot; qrc=$?
  if [ -f "$JOB/.exit_status" ]; then exit "$(cat "$JOB/.exit_status")"; fi
  grep -q '@@VMLAB init' "$LOG" 2>/dev/null && break
  [ "$try" -lt "$BOOT_TRIES" ] || break
  cp "$LOG" "$LOG.hung$try"
  echo "run-guest: boot $try did not reach the guest's init within $BOOT_TIMEOUT s (qemu exited $qrc); booting again (its console: $LOG.hung$try)" >&2
done
if grep -q '@@VMLAB init' "$LOG" 2>/dev/null; then
  echo "run-guest: the guest reported no exit status (qemu exited $qrc); its console:" >&2
else
  echo "run-guest: in $BOOT_TRIES boots the guest never reached its init within $BOOT_TIMEOUT s; the last one's console:" >&2
fi
tail -n 30 "$LOG" >&2
exit 125
