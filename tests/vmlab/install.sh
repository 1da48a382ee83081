#!/usr/bin/env bash
# The drive lab's host packages, idempotently (root, Debian 12):
# QEMU 10 from bookworm-backports (bookworm's QEMU 7.2 conflicts with the
# qemu-utils 10 this image ships, and 7.2 lacks NVMe features the tests
# use), busybox-static and cpio for the guest's initramfs, kmod for its
# modules, and the drive tools the tests compare methodic with (nvme-cli,
# hdparm, sg3-utils, sdparm, smartmontools). The backports source reuses
# the URI of the system's own Debian source.
set -euo pipefail
tools=(qemu-system-x86_64 busybox cpio nvme hdparm sg_inq sdparm smartctl)
have_all() { for t in "${tools[@]}"; do command -v "$t" >/dev/null 2>&1 || [ -x "/bin/$t" ] || return 1; done; }
have_all && exit 0
[ "$(id -u)" = 0 ] || { echo "tests/vmlab/install.sh: needs root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
src=/etc/apt/sources.list.d/debian.sources
bpo=/etc/apt/sources.list.d/bookworm-backports.sources
if ! grep -rqs bookworm-backports /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null; then
  uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$src" 2>/dev/null || true)
  uri=${uri:-http://deb.debian.org/debian}
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" > "$bpo"
fi
apt-get update >/dev/null
command -v qemu-system-x86_64 >/dev/null || apt-get install -y -t bookworm-backports qemu-system-x86 >/dev/null
apt-get install -y --no-install-recommends busybox-static cpio kmod nvme-cli hdparm sg3-utils sdparm smartmontools >/dev/null
have_all
