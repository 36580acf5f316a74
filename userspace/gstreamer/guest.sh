#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of userspace/gstreamer/run.sh, run by busybox as the
# initramfs's init: load vivid with the dma-contig allocator on its first
# instance, run the GStreamer patches' unit test and the end-to-end
# program without and with device chains, and power off. Each run prints
# on the virtio console between
#
#   ### RUN LABEL
#   ### END LABEL STATUS

/usr/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
exec >/dev/hvc0 2>&1

# A built-in driver has its /sys/module directory already, and took its
# parameters from the kernel command line.
[ -d /sys/module/vivid ] || modprobe vivid n_devs=2 allocators=1,0 ||
	echo "### modprobe vivid failed"

# No registry to keep, and no plugin scanner to fork.
export HOME=/tmp GST_REGISTRY_FORK=no GST_REGISTRY=/tmp/registry.bin

# The video node named $1.
node()
{
	for dev in /sys/class/video4linux/video*; do
		if [ "$(cat "$dev/name")" = "$1" ]; then
			echo "/dev/${dev##*/}"
			return
		fi
	done
	echo "### no video node $1" >&2
	echo /dev/null
}

run()
{
	label=$1
	shift
	echo "### RUN $label"
	"$@"
	echo "### END $label $?"
}

GST_CHECK_DMABUF_CHAIN_DEVICES=1 run dmabufchain-check dmabufchain-check

# vivid's instance 0 imports with dma-contig.
capture=$(node vivid-000-vid-cap)
run pipeline gst-chain-pipeline "$capture" 16
GST_V4L2_DMABUF_DEVICE_CHAIN=1 run pipeline-in-chains \
	gst-chain-pipeline "$capture" 16

poweroff -f
