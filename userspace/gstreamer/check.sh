#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the GStreamer patches against their upstream commit: apply them
# with git am onto the pinned commit's gst-plugins-base and
# gst-plugins-good, compile every C file they touch for arm64 against
# Debian's arm64 development packages, and link the unit test they add.
#
#   userspace/gstreamer/check.sh GST_SRC
#
# GST_SRC is a git repository that has GST_UPSTREAM_COMMIT (upstream);
# only the two subprojects are read from it, so a partial clone will do.
# Writes build/gstreamer/: src/ (the patched subprojects, a git
# repository whose first commit is upstream's), sysroot/ (the Debian
# packages) and dmabufchain-check (the unit test, for the guest).

. "$(dirname "$0")/../../scripts/common.sh"

[ $# -eq 1 ] && [ -n "$1" ] ||
	die "usage: $PROG GST_SRC (make gstreamer GST_SRC=...): a GStreamer git repository"
gst_src=$1
here=$ROOT/userspace/gstreamer
# shellcheck source=upstream
. "$here/upstream"
work=$BUILD/gstreamer
src=$work/src
sysroot=$work/sysroot

git -C "$gst_src" cat-file -e "$GST_UPSTREAM_COMMIT^{commit}" 2>/dev/null ||
	die "$gst_src has no GStreamer commit $GST_UPSTREAM_COMMIT"

rm -rf "$src"
mkdir -p "$src"
# A partial clone may lack other subprojects' objects; git says so.
git -C "$gst_src" archive "$GST_UPSTREAM_COMMIT" \
	subprojects/gst-plugins-base subprojects/gst-plugins-good \
	2> >(grep -v '^error: invalid object' >&2) | tar -x -C "$src"
(
	cd "$src"
	export GIT_AUTHOR_NAME=upstream GIT_AUTHOR_EMAIL=upstream@invalid
	export GIT_COMMITTER_NAME=upstream GIT_COMMITTER_EMAIL=upstream@invalid
	git init -q
	git add -A
	git commit -q -m "GStreamer $GST_UPSTREAM_COMMIT"
	git am -q "$here"/patches/*.patch
) || die "the patches do not apply to GStreamer $GST_UPSTREAM_COMMIT"
patches=("$here"/patches/*.patch)
note "the ${#patches[@]} patches apply to $GST_UPSTREAM_COMMIT"

note "fetching Debian's arm64 GStreamer development packages"
"$ROOT/scripts/fetch-debs.sh" arm64 "$sysroot" libc6-dev \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev >/dev/null

export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig
modules=(gstreamer-check-1.0 gstreamer-video-1.0 gstreamer-allocators-1.0)
read -ra cflags <<<"$(pkg-config --cflags "${modules[@]}")"
read -ra libs <<<"$(pkg-config --libs "${modules[@]}")"
base=$src/subprojects/gst-plugins-base
good=$src/subprojects/gst-plugins-good
cc=("${CROSS_COMPILE}gcc" --sysroot="$sysroot" -DHAVE_LINUX_DMA_BUF_H
    -DGETTEXT_PACKAGE='"gst-plugins-good-1.0"' -I"$base/gst-libs"
    "${cflags[@]}" -Wall -Wextra -Wno-unused-parameter
    -Wno-missing-field-initializers -Werror -O2)

# The patched files, and the headers they include, come before Debian's.
for file in "$base/gst-libs/gst/allocators/gstdmabufchain.c" \
	    "$base/gst-libs/gst/allocators/gstdmabuf.c" \
	    "$good/sys/v4l2/gstv4l2bufferpool.c"; do
	"${cc[@]}" -Wno-sign-compare -I"$(dirname "$file")" -fsyntax-only "$file" ||
		die "${file#"$src"/} does not compile for arm64"
done

# The unit test with the library's patched files: they take the place
# of Debian's gstdmabuf.c, which has no chains.
"${cc[@]}" -o "$work/dmabufchain-check" "$base/tests/check/libs/dmabufchain.c" \
	"$base/gst-libs/gst/allocators/gstdmabufchain.c" \
	"$base/gst-libs/gst/allocators/gstdmabuf.c" "${libs[@]}" ||
	die "the unit test does not link"
note "built ${work#"$ROOT"/}/dmabufchain-check"
