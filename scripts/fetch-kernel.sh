#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the pinned base's source tarball, downloading Debian's
# linux-source package into the cache first if needed.
#
# The download uses a private apt configuration (its own sources list and
# state under the cache) so that the machine's apt setup is never touched.
# The mirror is the one the machine already uses for Debian; set
# DEBIAN_MIRROR to override it.

. "$(dirname "$0")/common.sh"

tarball=$CACHE/$(basename "$BASE_TARBALL")
deb=$CACHE/${BASE_PACKAGE}_${BASE_PACKAGE_VERSION}_all.deb

if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

fetch_deb()
{
	local apt=$CACHE/apt mirror candidate

	mirror=$(debian_mirror)
	[ -n "$mirror" ] ||
		die "no Debian mirror in this machine's apt sources; set DEBIAN_MIRROR"

	private_apt "$apt" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $BASE_SUITE main"
	export APT_CONFIG=$apt/apt.conf

	note "downloading $BASE_PACKAGE $BASE_PACKAGE_VERSION from $BASE_SUITE"
	apt-get -qq update ||
		die "cannot read $BASE_SUITE from $mirror"
	candidate=$(apt-cache madison "$BASE_PACKAGE" |
		awk -F' *[|] *' -v v="$BASE_PACKAGE_VERSION" '$2 == v { print $2 }')
	[ -n "$candidate" ] ||
		die "$BASE_PACKAGE $BASE_PACKAGE_VERSION is no longer in $BASE_SUITE" \
		    "(it has: $(apt-cache madison "$BASE_PACKAGE" | awk -F' *[|] *' '{ print $2 }' | xargs))." \
		    "Pin a version it has in scripts/series.conf and check that the series" \
		    "still applies with 'make tree', or set KERNEL_SRC to your own Linux 7.3 tree."
	(cd "$CACHE" && apt-get -qq download "$BASE_PACKAGE=$BASE_PACKAGE_VERSION")
}

mkdir -p "$CACHE"
[ -f "$deb" ] || fetch_deb

echo "$BASE_DEB_SHA256  $deb" | sha256sum --quiet -c - ||
	die "$deb does not match BASE_DEB_SHA256 in scripts/series.conf; remove it and run again"

dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$BASE_TARBALL" >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "$tarball"
