# Run inside the drive lab guest by tests/vmlab.rs: methodic on each
# emulated drive, and what the drive's own tools say of it, into the job
# folder for the test to compare. $1: the methodic binary.
set -u
M=$1
cat > small.method <<'M'
methodology "vmlab" version "1"
target { span 64MiB }
workload w { random; block 4KiB; read 0% }
workload r { random; block 4KiB; read 100% }
phase "prepare" { erase discard fill { sequential; block 1MiB; read 0% } qd 4 }
phase "measure" { measure r qd 4 for 500ms measure w qd 4 for 500ms }
M
# The three drives at once: each has its own controller and driver.
for d in nvme0n1:TESTSERIAL01 sda:SATASERIAL01 sdb:SCSISERIAL01; do
  dev=/dev/${d%%:*}; serial=${d#*:}; name=${d%%:*}
  ( "$M" run small.method --target "$dev" --destroy "$serial" --no-ceiling --seed 1 --out "$name" \
      > "$name.stdout" 2> "$name.stderr"
    echo $? > "$name.rc" ) &
done
wait
nvme id-ctrl /dev/nvme0n1 -o json > nvme.id-ctrl.json
nvme id-ns /dev/nvme0n1 -o json > nvme.id-ns.json
pci=/sys/class/nvme/nvme0/device
echo "$(cat $pci/current_link_speed) x$(cat $pci/current_link_width)" > nvme.link
hdparm -I /dev/sda > sda.hdparm 2>&1
sg_inq -p 0x80 /dev/sdb > sdb.vpd80 2>&1
sg_inq /dev/sdb > sdb.inquiry 2>&1
# erase secure (BLKSECDISCARD): no NVMe, SATA or SCSI drive takes it; the
# data must be left as it was.
cat > secure.method <<'M'
methodology "secure" version "1"
target { span 64MiB }
erase secure
M
dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=4 oflag=direct status=none
dd if=/dev/nvme0n1 bs=1M count=4 iflag=direct status=none | sha256sum > secure.before
"$M" run secure.method --target /dev/nvme0n1 --destroy TESTSERIAL01 --no-ceiling --out secure > secure.stdout 2> secure.stderr
echo $? > secure.rc
dd if=/dev/nvme0n1 bs=1M count=4 iflag=direct status=none | sha256sum > secure.after
exit 0
