#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the project needs, and only those that are
# missing, so that a second run costs nothing.

. "$(dirname "$0")/common.sh"

packages=(
	# fetching the base and working on the series
	apt debian-archive-keyring git b4 xz-utils
	# building the kernel and the arm64 user space
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev perl python3
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
	# checkpatch's SPDX check (scripts/spdxcheck.py)
	python3-ply python3-git
	# kselftest install (rsync), boot
	rsync qemu-system-arm
)

missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] ||
	die "missing packages: ${missing[*]}; install them (as root) and run again"

note "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
