#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of scripts/v4l2-compliance.sh, run by busybox as the
# initramfs's init: load the virtual V4L2 drivers if they are modules, run
# v4l2-compliance -s on their video nodes, with and without a DMABUF
# exporter, and power off. Each run prints on the virtio console between
#
#   ### RUN LABEL: ARGS
#   ### END LABEL STATUS
#
# where LABEL is "node option", the node named as the driver names it.

. /guest-lib.sh

load vivid n_devs=2 allocators=1,0
load vimc allocator=1
load vim2m

run()
{
	label=$1
	shift
	echo "### RUN $label: $*"
	v4l2-compliance -C never "$@"
	echo "### END $label $?"
}

# vimc streams only when each link joins equal formats: Bayer from the
# sensors to the raw captures and the debayers, RGB on after them (the
# test-media script of v4l-utils sets the same). Set again before each
# run, since v4l2-compliance changes formats.
vimc_pipeline()
{
	for pad in '"Sensor A":0' '"Sensor B":0' '"Debayer A":0' '"Debayer B":0'; do
		media-ctl -d "$(media 'VIMC MDEV')" -V "${pad}[fmt:SBGGR8_1X8/640x480]"
	done
	for cap in 'Raw Capture 0' 'Raw Capture 1'; do
		v4l2-ctl -d "$(node "$cap")" -v width=640,height=480,pixelformat=BA81
	done
	v4l2-ctl -d "$(node 'RGB/YUV Capture')" -v width=640,height=480,pixelformat=RGB3
}

# vivid instance 0 allocates with dma-contig, instance 1 with vmalloc.
for i in 000 001; do
	for n in vid-cap vid-out meta-cap meta-out; do
		run "vivid-$i-$n -s" -d "$(node "vivid-$i-$n")" -s
	done
done
run "vim2m -s" -d "$(node vim2m)" -s
for n in "Raw Capture 0" "Raw Capture 1" "RGB/YUV Capture"; do
	vimc_pipeline
	run "$n -s" -d "$(node "$n")" -s
done

# DMABUF import into every dma-contig importer, from a dma-contig capture
# node set to 1920x1080, whose buffers are larger than the importer's.
# The exporter is of another driver: vivid reconnects after its
# Disconnect test only once no file of the instance is open.
exporter=$(node 'RGB/YUV Capture')
v4l2-ctl -d "$exporter" -v width=1920,height=1080,pixelformat=RGB3
for n in vid-cap vid-out meta-cap meta-out; do
	run "vivid-000-$n -s -e RGB/YUV Capture" -d "$(node "vivid-000-$n")" -s -e "$exporter"
done
run "vim2m -s -e RGB/YUV Capture" -d "$(node vim2m)" -s -e "$exporter"
exporter=$(node vivid-000-vid-cap)
v4l2-ctl -d "$exporter" -v width=1920,height=1080,pixelformat=YUYV
for n in "Raw Capture 0" "Raw Capture 1" "RGB/YUV Capture"; do
	vimc_pipeline
	run "$n -s -e vivid-000-vid-cap" -d "$(node "$n")" -s -e "$exporter"
done

echo "### DONE"
poweroff -f
