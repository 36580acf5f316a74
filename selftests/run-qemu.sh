#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a test kernel under QEMU (arm64 "virt", TCG) with its initramfs.
# KUnit suites run during boot; init then runs the kselftests and powers
# off.
#
#   run-qemu.sh OUT_DIR [TAG]
#
# Writes OUT_DIR/console.log (the serial console: kernel log and KUnit
# KTAP) and OUT_DIR/kselftest.tap (the kselftest TAP, from a virtio
# console); with TAG, console-TAG.log and kselftest-TAG.tap. QEMU_TIMEOUT
# (seconds, default 900) bounds the whole run; QEMU_MEM (default 4G) is the
# guest's RAM, which starts at 1 GiB; KSELFTEST_FILTER runs one kselftest
# collection only, or all but one with a leading "-" (see init.sh for
# programs); KERNEL_ARGS adds to
# the kernel command line (dmabuf_kunit.ownership_seed=N, say).
# QEMU_ICOUNT=1 runs the guest under -icount, on one CPU: its clock then
# counts the instructions it executes, one a nanosecond, interrupts
# included. QEMU_EMULATE_CACHE=0 turns off the test engine's cache
# emulation (emulate_cache), which is on otherwise, and off under -icount,
# whose counts it would distort: TCG models no CPU cache, so the engine
# emulates one for the data checks to fail as on a board.

. "$(dirname "$0")/../scripts/common.sh"

out=${1:?usage: $PROG OUT_DIR [TAG]}
suffix=${2:+-$2}
timeout=${QEMU_TIMEOUT:-900}
check_kselftest_filter
cmdline="console=ttyAMA0 panic=-1"
[ -z "${KSELFTEST_FILTER:-}" ] || cmdline+=" kselftest.filter=$KSELFTEST_FILTER"
emulate=${QEMU_EMULATE_CACHE:-1}
[ "${QEMU_ICOUNT:-0}" = 0 ] || emulate=0
case "$emulate" in
0 | 1) cmdline+=" dma_buf_test_engine.emulate_cache=$emulate" ;;
*) die "QEMU_EMULATE_CACHE=$emulate: 0 or 1" ;;
esac
[ -z "${KERNEL_ARGS:-}" ] || cmdline+=" $KERNEL_ARGS"

rm -f "$out/console$suffix.log" "$out/kselftest$suffix.tap"

# 4 GiB at the virt machine's 1 GiB base puts RAM above 4 GiB, as on many
# boards: swiotlb is set up, and the heap tests have a 32-bit device bounce.
# pauth-impdef only makes TCG faster.
# Under -icount the CPUs share one instruction count: one CPU, so that
# what a test times is its own work and its interrupts'.
cpus=(-smp 2)
[ "${QEMU_ICOUNT:-0}" = 0 ] || cpus=(-smp 1 -icount shift=0,sleep=off)
status=0
timeout -k 10 "$timeout" qemu-system-aarch64 \
	-M virt -cpu max,pauth-impdef=on "${cpus[@]}" -m "${QEMU_MEM:-4G}" \
	-display none -monitor none -no-reboot -nic none \
	-kernel "$out/arch/arm64/boot/Image" \
	-initrd "$out/initramfs.cpio" \
	-append "$cmdline" \
	-serial "file:$out/console$suffix.log" \
	-device virtio-serial-device \
	-chardev "file,id=tap,path=$out/kselftest$suffix.tap" \
	-device virtconsole,chardev=tap || status=$?

[ "$status" -ne 124 ] || die "QEMU did not finish within $timeout s; see $out/console$suffix.log"
[ "$status" -eq 0 ] || die "QEMU failed with status $status; see $out/console$suffix.log"
