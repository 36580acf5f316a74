# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the init scripts of the guests that run one script of Debian
# user space (make compliance, make userspace), run by busybox: sets the
# guest up, sends what follows to the virtio console, and gives them the
# helpers below. guest_boot_pair (common.sh) puts it in the initramfs.

/usr/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
exec >/dev/hvc0 2>&1

# Loads module $1 with the options that follow. A built-in driver has its
# /sys/module directory already, and took its options from the kernel
# command line.
load()
{
	[ -d "/sys/module/$1" ] || modprobe "$@" || echo "### modprobe $* failed"
}

# The /dev node of the device in sysfs directory glob $1 whose attribute
# $2 reads $3.
dev_node()
{
	for dev in $1; do
		if [ "$(cat "$dev/$2")" = "$3" ]; then
			echo "/dev/${dev##*/}"
			return
		fi
	done
	echo "### no device with $2 $3" >&2
	echo /dev/null
}

# The video node the driver named $1; the media device of model $1.
node() { dev_node '/sys/class/video4linux/video*' name "$1"; }
media() { dev_node '/sys/bus/media/devices/media*' model "$1"; }
