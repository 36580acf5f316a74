#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test initramfs for a kernel built by scripts/build-kernel.sh:
# the static init of init.c, the installed kselftests, the series'
# device-chain kselftests and the benchmark.
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
"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror \
	-o "$root/init" "$ROOT/selftests/init.c"
cp -a "$kselftests" "$root/kselftest"

# The benchmark against the base runs as one more kselftest collection.
bench=$root/kselftest/dmabuf-bench
mkdir -p "$bench"
"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -I "$out/usr/include" \
	-o "$bench/hop_bench" "$ROOT/bench/hop_bench.c"
cp "$out/bench/dmabuf_hops.ko" "$bench/"
echo "timeout=300" >"$bench/settings"
echo "dmabuf-bench:hop_bench" >>"$root/kselftest/kselftest-list.txt"

# The series' device-chain kselftests, built from the series for both
# kernels by build-kernel.sh.
chain=$root/kselftest/dmabuf-chain
mkdir -p "$chain"
cp "$out"/dmabuf-chain/{device_chain,v4l2_chain} "$TREE/tools/testing/selftests/dmabuf-chain/settings" "$chain/"
printf 'dmabuf-chain:%s\n' device_chain v4l2_chain >>"$root/kselftest/kselftest-list.txt"

cat >"$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
LIST

# gen_initramfs.sh runs usr/gen_init_cpio from the output directory.
(cd "$out" && "$TREE/usr/gen_initramfs.sh" -o initramfs.cpio -u squash -g squash \
	"$root" initramfs.list)
