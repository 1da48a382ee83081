#!/usr/bin/env bash
# Builds the drive lab's guest into $VMLAB_DIR/guest (default
# ~/.cache/methodic-vmlab): Debian's generic kernel (downloaded with
# apt-get download and unpacked with dpkg -x, not installed) and an
# initramfs of busybox, the storage and 9p modules, and init.sh.
# Idempotent: a guest already built for this init.sh is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
D=${VMLAB_DIR:-$HOME/.cache/methodic-vmlab}
mkdir -p "$D"
stamp=$(sha256sum "$here/init.sh" "$0" | sha256sum | cut -c1-16)
if [ -f "$D/guest/vmlinuz" ] && [ -f "$D/guest/initramfs.cpio.gz" ] && [ "$(cat "$D/guest/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
# The kernel bookworm's linux-image-amd64 points at now (K overrides).
K=${K:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {sub("linux-image-", "", $2); print $2; exit}')}
[ -n "$K" ] || { echo "build-guest: cannot tell the kernel version (apt-cache depends linux-image-amd64)" >&2; exit 1; }
KD=$D/kernel-$K
if [ ! -f "$KD/boot/vmlinuz-$K" ]; then
  rm -rf "$KD.tmp" && mkdir -p "$KD.tmp"
  (cd "$KD.tmp" && apt-get download "linux-image-$K" >/dev/null && dpkg -x linux-image-"$K"_*.deb unpacked)
  mv "$KD.tmp/unpacked" "$KD" && rm -rf "$KD.tmp"
fi
[ -f "$KD/lib/modules/$K/modules.dep" ] || depmod -b "$KD" "$K"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
mkdir -p "$W"/{bin,proc,sys,dev,mnt,lib/modules}
cp /bin/busybox "$W/bin/busybox"
cp "$here/init.sh" "$W/init" && chmod +x "$W/init"
: > "$W/modules.list"
for m in nvme ahci sd_mod sg virtio_scsi virtio_pci 9p 9pnet_virtio; do
  modprobe -d "$KD" -S "$K" --show-depends "$m" | awk '$1=="insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r f; do
  cp "$f" "$W/lib/modules/" && basename "$f" >> "$W/modules.list"
done
mkdir -p "$D/guest"
(cd "$W" && find . | cpio -o -H newc --quiet | gzip -1) > "$D/guest/initramfs.cpio.gz.tmp"
cp "$KD/boot/vmlinuz-$K" "$D/guest/vmlinuz.tmp"
mv "$D/guest/initramfs.cpio.gz.tmp" "$D/guest/initramfs.cpio.gz"
mv "$D/guest/vmlinuz.tmp" "$D/guest/vmlinuz"
echo "$stamp" > "$D/guest/stamp"
