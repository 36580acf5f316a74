#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# init of the QEMU test initramfs, under Debian's busybox: mount what the
# tests use, run the installed kselftests with their own run_kselftest.sh,
# as on a board, and power off.
#
# The TAP goes to /dev/hvc0, a virtio console that the host writes to a
# file of its own, so that kernel messages on the serial console cannot
# interleave with it. A setup step that fails prints "Bail out!", which
# fails the run.
#
# "kselftest.filter=COLLECTION" on the kernel command line runs one
# collection only, "kselftest.filter=COLLECTION:PROGRAM[,...]" those
# programs, "kselftest.filter=-COLLECTION" all others,
# "kselftest.filter=-COLLECTION:PROGRAM[,...]" all programs but those, and
# "kselftest.filter=none" none. "kselftest.run=COLLECTION/PROGRAM[,ARG...]"
# runs one program with arguments instead, as a user runs it on a board.

/bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev
exec >/dev/hvc0 2>&1

mount -t proc proc /proc &&
mount -t sysfs sysfs /sys &&
mount -t debugfs debugfs /sys/kernel/debug &&
mount -t tracefs tracefs /sys/kernel/tracing &&
mount -t tmpfs tmpfs /tmp ||
	echo "Bail out! init: a mount failed"

# What udev or mdev would add to devtmpfs: run_kselftest.sh logs to
# /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr

filter=
run=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	kselftest.filter=*) filter=${arg#kselftest.filter=} ;;
	kselftest.run=*) run=${arg#kselftest.run=} ;;
	esac
done

cd /kselftest || echo "Bail out! no /kselftest"

# With DMA-API debugging (the debug kernel), report every error, not only
# the first; the boot's total is logged at the end.
dma_api=/sys/kernel/debug/dma-api
[ ! -w $dma_api/all_errors ] || echo 1 >$dma_api/all_errors

# run_kselftest.sh takes the collections to run or the tests to skip.
args=
case "$filter" in
"") ;;
-*:*) args=$(echo "${filter#-}" | tr , '\n' | sed 's/^/-S /') ;;
-*) args=$(grep "^${filter#-}:" kselftest-list.txt | sed 's/^/-S /') ;;
*:*) args=$(echo "$filter" | tr , '\n' | sed 's/^/-t /') ;;
*) args="-c $filter" ;;
esac

# Upstream's dmabuf-heaps config asks for vgem, whose import test skips
# without it, and nothing in the collection loads it: load it as a board
# would at boot.
case "$filter" in
none | -dmabuf-heaps) ;;
"" | dmabuf-heaps | -* | *dmabuf-heaps:*)
	[ -n "$run" ] || modprobe vgem || echo "Bail out! init: modprobe vgem failed" ;;
esac

if [ -n "$run" ]; then
	program=${run%%,*}
	(
		set -f
		IFS=,
		run_args=${run#"$program"}
		# shellcheck disable=SC2086 # one word per argument
		set -- ${run_args#,}
		cd "$(dirname "$program")" && "./$(basename "$program")" "$@"
	) || echo "Bail out! init: kselftest.run=$run failed"
elif [ "$filter" = none ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP kselftest.filter=none"
else
	# shellcheck disable=SC2086 # one word per option
	./run_kselftest.sh $args
fi

# With kmemleak (the debug kernel), scan once the last test's objects are
# older than its minimum age (5 s), and once more for what a stale
# pointer hid from the first; a leak is reported in the kernel log, which
# scripts/check-console.sh reads, and its first objects go to the TAP.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	head -n 40 /sys/kernel/debug/kmemleak | sed 's/^/# kmemleak: /'
	# Every record to the kernel log, for scripts/check-console.sh.
	while IFS= read -r line; do
		echo "kmemleak report: $line" >/dev/kmsg
	done </sys/kernel/debug/kmemleak
fi
# Errors before init (KUnit) printed only the first: the count has all.
# A debugging tool that gave up checked nothing since.
if [ -r $dma_api/error_count ]; then
	echo "DMA-API: $(cat $dma_api/error_count) errors in this boot" >/dev/kmsg
	[ "$(cat $dma_api/disabled)" = N ] ||
		echo "DMA-API: debugging disabled during the tests" >/dev/kmsg
fi

sync
poweroff -f
