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

. /guest-lib.sh

load vivid n_devs=2 allocators=1,0

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

poweroff -f
