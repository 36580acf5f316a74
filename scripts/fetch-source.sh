#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Download the upstream tarball (.orig.tar.*) of a Debian source package
# and unpack it: the release Debian builds its binaries from, for
# building patched copies of some of them.
#
#   fetch-source.sh DEST SRCPKG SUITE...
#
# Takes the version of the first SUITE whose tarball the mirror serves:
# the mirror may not hold every file of every source package (the one
# this project is developed on lacks gst-plugins-good's 1.26.2). The
# tarball's SHA-256 comes from the suite's Sources index, which apt checks
# against the signed Release file, and apt-helper checks the download
# against it. sid's Release file expires a week after its date, and a
# mirror that lags (a snapshot, a frozen archive) must still serve it:
# Release files stay valid for 180 days here; apt still checks their
# signatures. Tarballs stay cached in $CACHE/src. Unpacks into DEST and
# prints "SUITE VERSION DIR", DIR being the unpacked top directory.

. "$(dirname "$0")/common.sh"

[ $# -ge 3 ] || die "usage: $PROG DEST SRCPKG SUITE..."
dest=$1 package=$2
shift 2

mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt sources; set DEBIAN_MIRROR"
mirror=${mirror%/}
mkdir -p "$CACHE/src" "$dest"

tried=()
for suite in "$@"; do
	apt=$CACHE/apt-source-$suite
	private_apt "$apt" \
		"deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg valid-until-min=15552000] $mirror $suite main"
	apt_update_daily "$apt" "$mirror" "$suite (sources)"
	# "VERSION DIRECTORY SHA256 FILE" of the first version the suite lists.
	read -r version directory sha256 file < <(APT_CONFIG=$apt/apt.conf \
		apt-cache showsrc --only-source "$package" 2>/dev/null | awk '
		/^Version: / { v = $2 }
		/^Directory: / { d = $2 }
		/^Checksums-Sha256:/ { sums = 1; next }
		sums && /^ / && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { s = $1; f = $3 }
		sums && !/^ / { sums = 0 }
		/^$/ && f != "" { exit }
		END { if (f != "") print v, d, s, f }') || true
	if [ -z "${file:-}" ]; then
		tried+=("$suite: no $package")
		continue
	fi
	tarball=$CACHE/src/$file
	if [ ! -f "$tarball" ] &&
	   ! /usr/lib/apt/apt-helper download-file "$mirror/$directory/$file" \
		"$tarball.part" "SHA256:$sha256" >"$CACHE/src/download.log" 2>&1; then
		rm -f "$tarball.part"
		tried+=("$suite: $package $version: $(grep -m1 '^E:' "$CACHE/src/download.log" ||
			tail -n 1 "$CACHE/src/download.log")")
		continue
	fi
	[ -f "$tarball" ] || mv "$tarball.part" "$tarball"
	echo "$sha256  $tarball" | sha256sum --quiet -c - ||
		die "$tarball does not match $suite's Sources index; remove it and run again"
	top=$(tar -tf "$tarball" | awk -F/ '{ sub("^[.]/", "") } top == "" { top = $1 }
		END { print top }')
	[ -n "$top" ] || die "$tarball has no top directory"
	rm -rf "${dest:?}/$top"
	tar -xf "$tarball" -C "$dest"
	echo "$suite $version $dest/$top"
	exit 0
done
die "no source of $package: $(IFS=';'; echo "${tried[*]}")"
