#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Download Debian packages of another architecture with their
# dependencies, and unpack them into a directory: the user space of the
# test guest (busybox, v4l-utils, ...), as a board's Debian would have it.
#
#   fetch-debs.sh ARCH DEST PKG...
#
# The packages come from $GUEST_SUITE (scripts/series.conf) through a
# private apt configuration, as the base does in fetch-kernel.sh: apt
# checks them against the signed Release file, and the .debs stay cached
# in $CACHE/apt-ARCH/archives. apt resolves the dependencies against an
# empty status file, so DEST gets every library a program needs, not only
# those this machine happens to lack. DEST gets Debian's merged /usr
# links (bin, sbin, lib -> usr/...), so that a dynamically linked program
# finds its loader at /lib. Prints the unpacked packages, one a line.

. "$(dirname "$0")/common.sh"

[ $# -ge 3 ] || die "usage: $PROG ARCH DEST PKG..."
arch=$1 dest=$2
shift 2

apt=$CACHE/apt-$arch
mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt sources; set DEBIAN_MIRROR"

private_apt "$apt" \
	"deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $GUEST_SUITE main"
cat >>"$apt/apt.conf" <<CONF
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
CONF
export APT_CONFIG=$apt/apt.conf

apt_update_daily "$apt" "$mirror" "$GUEST_SUITE ($arch)"

# What apt would install on an empty system: "Inst NAME (VERSION ...)".
mapfile -t debs < <(apt-get -s -qq install --no-install-recommends "$@" |
	awk '$1 == "Inst" {
		v = substr($3, 2); gsub(":", "%3a", v)
		print $2 "_" v "_"
	}')
[ "${#debs[@]}" -gt 0 ] || die "apt found nothing to install for: $*"
apt-get -qq -y install --download-only --no-install-recommends "$@" >/dev/null ||
	die "cannot download $* ($arch) from $GUEST_SUITE"

mkdir -p "$dest/usr/bin" "$dest/usr/sbin" "$dest/usr/lib"
for dir in bin sbin lib; do
	[ -e "$dest/$dir" ] || ln -s "usr/$dir" "$dest/$dir"
done
for deb in "${debs[@]}"; do
	file=$(compgen -G "$apt/archives/${deb}*.deb" | head -n1) ||
		die "$deb*.deb missing from $apt/archives after the download"
	dpkg-deb -x "$file" "$dest"
	echo "${deb%%_*}"
done
