#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The media subsystem's own acceptance test, base against series: boot
# both kernels side by side under QEMU with an initramfs of Debian's
# v4l-utils and busybox, run v4l2-compliance -s on the video nodes of
# vivid (dma-contig and vmalloc), vim2m and vimc, and with a DMABUF
# exporter on the dma-contig ones (scripts/v4l2-compliance-guest.sh), and
# compare the results.
#
#   v4l2-compliance.sh
#
# Writes build/compliance/compliance.md (the table) and, per kernel,
# build/compliance/KERNEL/guest.log (v4l2-compliance's output) and
# console.log. Exits non-zero if a result of the series differs from the
# base's, or if a boot shows a kernel problem. The kernels must be built
# (make kernels); their Images are copied first, since a build may replace
# them while the guests run. QEMU_TIMEOUT (seconds, default 1800) bounds a
# boot.

. "$(dirname "$0")/common.sh"

work=$BUILD/compliance
root=$work/root
kinds=(base series)
# Built-in drivers take their parameters here; as modules, the guest
# script passes the same to modprobe.
cmdline="console=ttyAMA0 panic=-1 kunit.enable=0 vivid.n_devs=2 vivid.allocators=1,0 vimc.allocator=1"
# The kernel has no binfmt_script: busybox itself is init.
cmdline+=" rdinit=/usr/bin/busybox -- sh /compliance.sh"

rm -rf "$work"
mkdir -p "$work/usr"

for kind in "${kinds[@]}"; do
	guest_kernel "$kind" "$work/$kind"
done

note "fetching busybox-static and v4l-utils for arm64"
"$ROOT/scripts/fetch-debs.sh" arm64 "$root" busybox-static v4l-utils >/dev/null
rm -rf "${root:?}/usr/share"
install -m 0755 "$ROOT/scripts/v4l2-compliance-guest.sh" "$root/compliance.sh"

# gen_initramfs.sh runs usr/gen_init_cpio from its working directory;
# build it from the tree rather than depend on a kernel's output.
cc -O2 -o "$work/usr/gen_init_cpio" "$TREE/usr/gen_init_cpio.c"

# Both at once: the drivers stream in real time, so the guests mostly wait.
status=0
guest_boot_pair "$work" "$cmdline" "$root" || status=1
"$ROOT/scripts/v4l2-compliance-table.py" \
	"$work/base/guest.log" "$work/series/guest.log" >"$work/compliance.md" || status=1
cat "$work/compliance.md"
exit "$status"
