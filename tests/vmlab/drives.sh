# Run inside the drive lab guest by tests/e2e/drive_lab.rs: methodic on each
# emulated drive, and what the drive's own tools say of it, into the job
# folder for the test to compare. $1: the methodic binary; $2: a folder
# holding the first phases to rehearse (NAME.method) and their order (a
# name a line, in `order`), which the test picks from the project's specs.
set -u
# The binary and every results folder on the guest's own tmpfs: over the
# job folder's 9p share each page the binary faults in is a round trip (a
# second a run), and each results write too. What the test reads is
# copied back at the end.
cp "$1" /tmp/methodic && M=/tmp/methodic
FIRST=$2
JOBDIR=$PWD
mkdir -p /tmp/w && cd /tmp/w
# The NVMe controller (/sys/class/nvme/nvmeX) whose serial is $1: the
# kernel numbers controllers as it finds them. Its namespace is nvmeXn1.
ctrl_of() { for c in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' < "$c/serial")" = "$1" ] && echo "$c"; done; }
C=$(ctrl_of TESTSERIAL01); NVME=/dev/$(basename "$C")n1
# The device of a results name: nvme0n1 is TESTSERIAL01's namespace.
dev_of() { if [ "$1" = nvme0n1 ]; then echo "$NVME"; else echo "/dev/$1"; fi; }
# Every spec that opens with an erase, one of each shape of first phase
# (tests/e2e/drive_lab.rs, first_phases): its first phase, rehearsed on an
# NVMe drive (erase purge there is a Format NVM), on the three extra NVMe
# drives at once, from the start, while the checks below run on the others.
mapfile -t names < "$FIRST/order"
# Each worker takes the next spec no one has claimed (mkdir is atomic).
first_phases() {
  local dev=/dev/$(basename "$(ctrl_of "$1")")n1
  for name in "${names[@]}"; do
    mkdir "claim-$name" 2>/dev/null || continue
    "$M" run "$FIRST/$name.method" --rehearse --target "$dev" --destroy "$1" --no-ceiling \
      --out "first-$name" > "first-$name.stdout" 2> "first-$name.stderr"
    echo $? > "first-$name.rc"
  done
}
for serial in TESTSERIAL02 TESTSERIAL03 TESTSERIAL04; do first_phases "$serial" & done
cat > small.method <<'M'
methodology "vmlab" version "1"
target { span 64MiB }
workload w { random; block 4KiB; read 0% }
workload rw { random; block 4KiB; read 50% }
phase "prepare" { erase discard fill { sequential; block 1MiB; read 0% } qd 4 }
phase "measure" { measure rw qd 4 until written 4MiB measure w qd 4 for 500ms }
M
# The three drives at once: each has its own controller and driver.
small=()
for d in nvme0n1:TESTSERIAL01 sda:SATASERIAL01 sdb:SCSISERIAL01; do
  name=${d%%:*}; serial=${d#*:}; dev=$(dev_of "$name")
  ( "$M" run small.method --target "$dev" --destroy "$serial" --no-ceiling --seed 1 --out "$name" \
      > "$name.stdout" 2> "$name.stderr"
    echo $? > "$name.rc" ) &
  small+=($!)
done
wait "${small[@]}"
nvme id-ctrl $NVME -o json > nvme.id-ctrl.json
nvme id-ns $NVME -o json > nvme.id-ns.json
pci=$C/device
echo "$(cat $pci/current_link_speed) x$(cat $pci/current_link_width)" > nvme.link
hdparm -I /dev/sda > sda.hdparm 2>&1
smartctl -A /dev/sda > sda.smart 2>&1
smartctl -l devstat /dev/sda > sda.devstat 2>&1
sg_inq -p 0x80 /dev/sdb > sdb.vpd80 2>&1
sg_inq /dev/sdb > sdb.inquiry 2>&1
# erase secure (BLKSECDISCARD): no NVMe, SATA or SCSI drive takes it; the
# data must be left as it was.
cat > secure.method <<'M'
methodology "secure" version "1"
target { span 64MiB }
erase secure
M
dd if=/dev/urandom of=$NVME bs=1M count=4 oflag=direct status=none
dd if=$NVME bs=1M count=4 iflag=direct status=none | sha256sum > secure.before
"$M" run secure.method --target $NVME --destroy TESTSERIAL01 --no-ceiling --out secure > secure.stdout 2> secure.stderr
echo $? > secure.rc
dd if=$NVME bs=1M count=4 iflag=direct status=none | sha256sum > secure.after
# The first 4 MiB of the NVMe namespace: do they read back as zeros?
zeroed() { dd if=$NVME bs=1M count=4 iflag=direct status=none | cmp -s -n 4194304 - /dev/zero && echo yes || echo no; }
fill_random() { dd if=/dev/urandom of=$NVME bs=1M count=4 oflag=direct status=none; }
# erase purge (QEMU's NVMe has no sanitize: Format NVM with user data
# erase) and erase format secure: the data reads back as zeros.
for m in purge "format secure"; do
  slug=${m// /-}
  printf 'methodology "e" version "1"\nphase "p" { erase %s }\n' "$m" > "e-$slug.method"
  fill_random
  echo "$(zeroed)" > "erase-$slug.before"
  "$M" run "e-$slug.method" --target $NVME --destroy TESTSERIAL01 --no-ceiling --out "erase-$slug" \
    > "erase-$slug.stdout" 2> "erase-$slug.stderr"
  echo $? > "erase-$slug.rc"
  echo "$(zeroed)" > "erase-$slug.after"
done
# Refused before anything is written, with what each drive says of itself:
# sanitize on the NVMe (SANICAP 0), ATA security erase on the SATA drive
# (IDENTIFY without the security feature set), sanitize on the SCSI disk.
fill_random
dd if=$NVME bs=1M count=4 iflag=direct status=none | sha256sum > refused.nvme.before
for d in nvme0n1:TESTSERIAL01:"sanitize block" sda:SATASERIAL01:ata_secure sdb:SCSISERIAL01:"sanitize crypto"; do
  IFS=: read -r name serial m <<< "$d"
  printf 'methodology "r" version "1"\nworkload s { sequential; block 1MiB; read 0%% }\nphase "p" { fill s erase %s }\n' "$m" \
    > "refused-$name.method"
  "$M" run "refused-$name.method" --target "$(dev_of "$name")" --destroy "$serial" --no-ceiling --out "refused-$name" \
    > "refused-$name.stdout" 2> "refused-$name.stderr"
  echo $? > "refused-$name.rc"
done
dd if=$NVME bs=1M count=4 iflag=direct status=none | sha256sum > refused.nvme.after
# The write cache: each drive's as its own tool reads it, before, during a
# run with `write_cache off`, after a crash (kill -9), during the resume
# that sets it again, and after a SIGTERM ends that resume.
caches() {
  { nvme get-feature $NVME -f 6 2>&1 | grep -o 'Current value:.*'
    hdparm -W /dev/sda 2>&1 | grep -o 'write-caching.*'
    sdparm --get WCE /dev/sdb 2>&1 | grep -o '^ *WCE *[0-9]' ; } | tr -s ' ' > "cache.$1"
}
# Waits (at most 120 s) until manifest.json in $1 has a step running (the
# run's own status says running from the start: two lines say it then).
running() {
  for _ in $(seq 1200); do
    [ "$(grep -c '"status": "running"' "$1/manifest.json" 2>/dev/null)" -ge 2 ] && return 0; sleep 0.1
  done; return 1
}
cat > wc.method <<'M'
methodology "wc" version "1"
target { write_cache off }
phase "p" { idle 10min }
M
caches before
for d in nvme0n1 sda sdb; do
  "$M" run wc.method --target "$(dev_of $d)" --no-ceiling --out "wc-$d" > "wc-$d.stdout" 2> "wc-$d.stderr" &
  echo $! > "wc-$d.pid"
done
for d in nvme0n1 sda sdb; do running "wc-$d" || echo "wc-$d never ran" >> wc.errors; done
caches during
for d in nvme0n1 sda sdb; do kill -9 "$(cat wc-$d.pid)"; done
wait $(cat wc-*.pid)
caches crashed
for d in nvme0n1 sda sdb; do
  "$M" run --resume "wc-$d" > "wc-$d.resume.stdout" 2> "wc-$d.resume.stderr" &
  echo $! > "wc-$d.pid"
done
for d in nvme0n1 sda sdb; do
  for _ in $(seq 1200); do grep -q 'again on resume' "wc-$d/manifest.json" 2>/dev/null && break; sleep 0.1; done
done
caches resumed
for d in nvme0n1 sda sdb; do kill -TERM "$(cat wc-$d.pid)"; done
wait $(cat wc-*.pid)
caches after
# The spec workers.
wait
rm -rf claim-*
cp -r /tmp/w/. "$JOBDIR/"
exit 0
