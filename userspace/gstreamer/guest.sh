#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of userspace/gstreamer/run.sh, run by busybox as the
# initramfs's init: load vivid with the dma-contig allocator on its first
# instance, run the GStreamer patches' unit test, the end-to-end program
# without and with device chains, with chains and a CPU stage in the
# middle, and killed mid-stream, and power off. Each run prints on the virtio console between
#
#   ### RUN LABEL
#   ### END LABEL STATUS

. /guest-lib.sh

load vivid n_devs=2 allocators=1,0
mount -t debugfs debugfs /sys/kernel/debug
bufinfo=/sys/kernel/debug/dma_buf/bufinfo

# No registry to keep, and no plugin scanner to fork.
export HOME=/tmp GST_REGISTRY_FORK=no GST_REGISTRY=/tmp/registry.bin

run()
{
	label=$1
	shift
	echo "### RUN $label"
	"$@"
	echo "### END $label $?"
}

run dmabufchain-check env GST_CHECK_DMABUF_CHAIN_DEVICES=1 dmabufchain-check

# vivid's instance 0 imports with dma-contig.
capture=$(node vivid-000-vid-cap)
run pipeline gst-chain-pipeline "$capture" 16
run pipeline-in-chains env GST_V4L2_DMABUF_DEVICE_CHAIN=1 \
	gst-chain-pipeline "$capture" 16
# A CPU stage in the middle: no chain may span it.
run pipeline-overlay-in-chains env GST_V4L2_DMABUF_DEVICE_CHAIN=1 \
	gst-chain-pipeline "$capture" 16 overlay

# Killed with SIGKILL mid-stream, once the kernel shows one of its chains
# open (or after 60 frames, on a kernel without chains), the program
# leaves no chain and no dmabuf behind: closing its files ends them. The
# last dmabufs may go a moment later, from the kernel's delayed fput.
# Prints "killed after F frames (status S): N chains seen, L chains and
# B dmabufs left".
killed()
{
	env GST_V4L2_DMABUF_DEVICE_CHAIN=1 gst-chain-pipeline "$1" 1000 >/tmp/killed.log 2>&1 &
	pid=$!
	seen=0
	frames=0
	while [ "$frames" -lt 60 ] && kill -0 "$pid" 2>/dev/null; do
		chains=$(grep -c 'Device chains:' "$bufinfo")
		[ "$chains" -le "$seen" ] || seen=$chains
		frames=$(grep -c '^frame ' /tmp/killed.log)
		[ "$seen" -eq 0 ] || [ "$frames" -lt 4 ] || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	status=$?
	for i in 1 2 3 4 5 6 7 8 9 10; do
		chains=$(grep -c 'Device chains:' "$bufinfo")
		bufs=$(grep -c '^[0-9]\{8\}' "$bufinfo")
		[ "$chains" -ne 0 ] || [ "$bufs" -ne 0 ] || break
		sleep 0.5
	done
	echo "killed after $frames frames (status $status): $seen chains seen," \
		"$chains chains and $bufs dmabufs left"
	# 137 is SIGKILL's; anything else, the program ended before.
	[ "$status" -eq 137 ]
}
run pipeline-killed killed "$capture"

poweroff -f
