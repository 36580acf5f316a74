#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test initramfs for a kernel built by scripts/build-kernel.sh:
# the static init of init.c and the installed kselftests.
#
#   mkinitramfs.sh OUT_DIR
#
# Writes OUT_DIR/initramfs.cpio. The archive is made with the kernel's own
# usr/gen_init_cpio, so device nodes need no root.

. "$(dirname "$0")/../scripts/common.sh"

out=${1:?usage: $PROG OUT_DIR}
kselftests=$out/kselftest/kselftest_install
gen=$out/usr/gen_init_cpio
list=$out/initramfs.list

[ -x "$gen" ] || die "$gen missing; build the kernel first"
[ -f "$kselftests/kselftest-list.txt" ] || die "no kselftests installed in $kselftests"

"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror \
	-o "$out/test-init" "$ROOT/selftests/init.c"

{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	echo "file /init $out/test-init 0755 0 0"
	echo "dir /kselftest 0755 0 0"
	(cd "$kselftests" && find . -mindepth 1 | sort) | while read -r path; do
		path=${path#./}
		if [ -L "$kselftests/$path" ]; then
			echo "slink /kselftest/$path $(readlink "$kselftests/$path") 0777 0 0"
		elif [ -d "$kselftests/$path" ]; then
			echo "dir /kselftest/$path 0755 0 0"
		else
			echo "file /kselftest/$path $kselftests/$path $(stat -c %a "$kselftests/$path") 0 0"
		fi
	done
} >"$list"

"$gen" "$list" >"$out/initramfs.cpio"
