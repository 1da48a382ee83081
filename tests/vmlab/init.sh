#!/bin/busybox sh
# The drive lab guest's init: loads the storage and 9p modules, mounts the
# host's root (shared read-only over virtio-9p) and the job folder, waits
# for the drives, runs /tmp/job/script.sh in a chroot of the host root (so
# every host tool and the methodic the host built run inside), writes its
# exit status beside it, and powers off.
# Each stage says on the console when it is reached, with the guest's
# uptime: a guest that hangs shows where, in the test's failure message.
# A boot that never says "init" hung in the kernel (one did in CI, with
# nothing on the quiet console of then): run-guest.sh boots it again, and
# the kernel's own messages (loglevel 6) show where it stopped.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "@@VMLAB init at $(cut -d' ' -f1 /proc/uptime) s"
for m in $(cat /modules.list); do insmod /lib/modules/$m 2>/dev/null; done
echo "@@VMLAB modules loaded at $(cut -d' ' -f1 /proc/uptime) s"
R=/mnt/host
mkdir -p $R
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot $R || { echo "@@VMLAB no host root"; poweroff -f; }
echo "@@VMLAB host root mounted at $(cut -d' ' -f1 /proc/uptime) s"
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts 2>/dev/null; mount -t devpts devpts $R/dev/pts 2>/dev/null
ln -sf /proc/self/fd $R/dev/fd; ln -sf fd/0 $R/dev/stdin; ln -sf fd/1 $R/dev/stdout; ln -sf fd/2 $R/dev/stderr
for d in tmp run var/tmp root; do mount -t tmpfs tmpfs $R/$d; done
mkdir -p $R/tmp/job
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job $R/tmp/job || { echo "@@VMLAB no job folder"; poweroff -f; }
# The drives, probed within 10 s.
i=0; while [ $i -lt 100 ]; do
  [ "$(ls /sys/block | grep -cE '^(nvme[0-9]+n[0-9]+|sd[a-z]+)$')" -ge "${vmlab_disks:-0}" ] && break
  sleep 0.1; i=$((i+1)); done
echo "@@VMLAB ready: $(ls /sys/block | tr '\n' ' ')"
chroot $R /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /tmp/job && exec /bin/bash /tmp/job/script.sh' </dev/console >/dev/console 2>&1
rc=$?
echo $rc > $R/tmp/job/.exit_status
sync
echo "@@VMLAB exit $rc"
umount $R/tmp/job 2>/dev/null
poweroff -f
