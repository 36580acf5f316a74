#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test initramfs for a kernel built by scripts/build-kernel.sh,
# as the root file system of a board: Debian's busybox as the shell and
# modprobe and its coreutils, the init script init.sh, the kernel's
# modules and, for the base, the test engine's (bench/Kbuild;
# installed by build-kernel.sh, with depmod), and the kselftests as the kernel installs
# them.
#
#   mkinitramfs.sh OUT_DIR
#
# Writes OUT_DIR/initramfs.cpio with the kernel's own usr/gen_initramfs.sh,
# so that device nodes need no root.

. "$(dirname "$0")/../scripts/common.sh"

out=$(realpath "${1:?usage: $PROG OUT_DIR}")
kselftests=$out/kselftest/kselftest_install
root=$out/initramfs-root

[ -x "$out/usr/gen_init_cpio" ] || die "$out/usr/gen_init_cpio missing; build the kernel first"
[ -f "$kselftests/kselftest-list.txt" ] || die "no kselftests installed in $kselftests"

rm -rf "$root"
mkdir -p "$root"
# runner.sh needs coreutils' timeout (--foreground) and uses its stdbuf;
# busybox --install leaves their commands alone.
"$ROOT/scripts/fetch-debs.sh" arm64 "$root" busybox-static coreutils
ln -s busybox "$root/usr/bin/sh"
install -m 755 "$ROOT/selftests/init.sh" "$root/init"

# Into /lib/modules, which the packages make a link to /usr/lib/modules.
cp -a "$out/modules-install/lib/modules" "$root/lib/"

cp -a "$kselftests" "$root/kselftest"

initramfs_list "$out/initramfs.list"

# gen_initramfs.sh runs usr/gen_init_cpio from the output directory.
(cd "$out" && "$TREE/usr/gen_initramfs.sh" -o initramfs.cpio -u squash -g squash \
	"$root" initramfs.list)
