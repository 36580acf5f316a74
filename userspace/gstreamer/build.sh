#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the GStreamer patches and build them for the arm64 guest.
#
#   userspace/gstreamer/build.sh GST_SRC
#
# GST_SRC is a GStreamer git repository; only gst-plugins-base and
# gst-plugins-good are read from it, so a partial clone will do.
#
# 1. The patches must apply with git am to GST_UPSTREAM_COMMIT (upstream),
#    the commit they are sent against.
# 2. The guest runs Debian's GStreamer, so its binaries are built from
#    the upstream release Debian packages (the version of Debian's arm64
#    libgstreamer-plugins-base1.0-dev), with the same patches applied
#    (without their meson.build hunks, which this build does not use),
#    against Debian's arm64 development packages. The files the patches
#    touch must compile without warnings.
#
# Writes build/gstreamer/: upstream/ and release/ (the patched
# subprojects, git repositories whose first commit is GStreamer's),
# sysroot/ (the Debian packages), and root/, laid out as the guest's /usr:
#   lib/aarch64-linux-gnu/libgstallocators-1.0.so.0, in place of Debian's;
#   lib/aarch64-linux-gnu/gstreamer-1.0/libgstvideo4linux2.so, in place of
#     Debian's V4L2 plugin;
#   bin/dmabufchain-check, the unit test (gst-check);
#   bin/gst-chain-pipeline, the end-to-end program (pipeline.c).

. "$(dirname "$0")/../../scripts/common.sh"

[ $# -eq 1 ] && [ -n "$1" ] ||
	die "usage: $PROG GST_SRC (make gstreamer GST_SRC=...): a GStreamer git repository"
gst_src=$1
here=$ROOT/userspace/gstreamer
# shellcheck source=upstream
. "$here/upstream"
work=$BUILD/gstreamer
sysroot=$work/sysroot
patches=("$here"/patches/*.patch)

# The two subprojects of GStreamer commit $1 in a new git repository $2,
# with the patches applied by the command that follows.
patched_tree()
{
	local commit=$1 dir=$2

	shift 2
	git -C "$gst_src" cat-file -e "$commit^{commit}" 2>/dev/null ||
		die "$gst_src has no GStreamer commit $commit"
	rm -rf "$dir"
	mkdir -p "$dir"
	# A partial clone may lack other subprojects' objects; git says so.
	git -C "$gst_src" archive "$commit" \
		subprojects/gst-plugins-base subprojects/gst-plugins-good \
		2> >(grep -v '^error: invalid object' >&2) | tar -x -C "$dir"
	export GIT_AUTHOR_NAME=upstream GIT_AUTHOR_EMAIL=upstream@invalid
	export GIT_COMMITTER_NAME=upstream GIT_COMMITTER_EMAIL=upstream@invalid
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" -c commit.gpgsign=false -c core.hooksPath=/dev/null commit -q \
		-m "GStreamer $commit" || die "cannot commit GStreamer $commit in $dir"
	(cd "$dir" && "$@" "${patches[@]}") ||
		die "the patches do not apply to GStreamer $commit"
}

patched_tree "$GST_UPSTREAM_COMMIT" "$work/upstream" \
	git -c commit.gpgsign=false -c core.hooksPath=/dev/null am -q
note "the ${#patches[@]} patches apply to $GST_UPSTREAM_COMMIT"

note "fetching Debian's arm64 GStreamer development packages"
"$ROOT/scripts/fetch-debs.sh" arm64 "$sysroot" libc6-dev \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev >/dev/null
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig
release=$(pkg-config --modversion gstreamer-plugins-base-1.0)
patched_tree "$release" "$work/release" git apply --index --exclude='*/meson.build'
note "building GStreamer $release with the patches for arm64"

modules=(gstreamer-check-1.0 gstreamer-video-1.0 gstreamer-pbutils-1.0
	 gstreamer-base-1.0 gstreamer-app-1.0)
flags=$(pkg-config --cflags "${modules[@]}") &&
	read -ra cflags <<<"$flags" &&
	flags=$(pkg-config --libs "${modules[@]}") &&
	read -ra libs <<<"$flags" ||
	die "pkg-config cannot find ${modules[*]} in $sysroot"
base=$work/release/subprojects/gst-plugins-base
good=$work/release/subprojects/gst-plugins-good
allocators=$base/gst-libs/gst/allocators
v4l2=$good/sys/v4l2
obj=$work/obj
root=$work/root
lib=$root/usr/lib/aarch64-linux-gnu
# The patched headers come before Debian's.
cc=("${CROSS_COMPILE}gcc" --sysroot="$sysroot" -I"$base/gst-libs" "${cflags[@]}"
    -DHAVE_LINUX_DMA_BUF_H -Wall -O2 -fPIC)
touched=$(cd "$work/release" && git diff --cached --name-only -- '*.c')

# Compile $1 into directory $2 with the flags that follow; -Werror if the
# patches touch the file.
compile()
{
	local file=$1 dir=$2 strict=()

	shift 2
	! grep -qxF "${file#"$work/release/"}" <<<"$touched" || strict=(-Werror)
	"${cc[@]}" "$@" "${strict[@]}" -c "$file" -o "$dir/$(basename "$file" .c).o" ||
		die "${file#"$work"/} does not compile for arm64"
}

rm -rf "$obj" "$root"
mkdir -p "$obj/allocators" "$obj/v4l2" "$lib/gstreamer-1.0" "$root/usr/bin"

# The library as its meson.build builds it on Linux, without libdrm.
for file in $(sed -n "s/^  '\\(gst.*\\.c\\)',\\?$/\\1/p" "$allocators/meson.build") \
	    gstdmabufchain.c; do
	case $file in gstahardwarebuffer.c | gstiosurface.c) continue ;; esac
	compile "$allocators/$file" "$obj/allocators" -fvisibility=hidden \
		-DBUILDING_GST_ALLOCATORS -DG_LOG_DOMAIN='"GStreamer-Allocators"' \
		-DHAVE_MMAP -DHAVE_MEMFD_CREATE -D_GNU_SOURCE -DHAVE_GETPAGESIZE
done
"${cc[@]}" -shared -Wl,-soname,libgstallocators-1.0.so.0 -Wl,--no-undefined \
	-o "$lib/libgstallocators-1.0.so.0" "$obj/allocators"/*.o "${libs[@]}"
# What links with it finds it first, not Debian's.
ln -s "$lib/libgstallocators-1.0.so.0" "$obj/libgstallocators-1.0.so"
libs=(-L"$obj" -Wl,--no-undefined -lgstallocators-1.0 "${libs[@]}")

# The V4L2 plugin, without gudev and libv4l2.
cat >"$obj/v4l2/config.h" <<CONFIG
#define GETTEXT_PACKAGE "gst-plugins-good-1.0"
#define PACKAGE "gst-plugins-good"
#define VERSION "$release"
#define GST_PACKAGE_NAME "GStreamer Good Plug-ins (userspace/gstreamer)"
#define GST_PACKAGE_ORIGIN "userspace/gstreamer"
#define GST_LICENSE "LGPL"
#define LOCALEDIR "/usr/share/locale"
#define HAVE_GST_V4L2 1
#define GST_V4L2_ENABLE_PROBE 0
CONFIG
for file in $(sed -n "s/^  '\\(.*\\.c\\)',\\?$/\\1/p" "$v4l2/meson.build"); do
	compile "$v4l2/$file" "$obj/v4l2" -DHAVE_CONFIG_H -I"$obj/v4l2" -I"$v4l2"
done
"${cc[@]}" -shared -o "$lib/gstreamer-1.0/libgstvideo4linux2.so" \
	"$obj/v4l2"/*.o "${libs[@]}"

# What is sent is the upstream form: the files it touches must compile
# without warnings too, against Debian's headers and its own.
up=$work/upstream/subprojects
for file in $(cd "$work/upstream" && git diff --name-only "HEAD~${#patches[@]}" -- '*.c'); do
	"${cc[@]}" -I"$up/gst-plugins-base/gst-libs" -DHAVE_CONFIG_H -I"$obj/v4l2" \
		-I"$(dirname "$work/upstream/$file")" -Werror -fsyntax-only \
		"$work/upstream/$file" || die "$file of upstream does not compile for arm64"
done

compile "$base/tests/check/libs/dmabufchain.c" "$obj"
"${cc[@]}" -o "$root/usr/bin/dmabufchain-check" "$obj/dmabufchain.o" "${libs[@]}"

# The end-to-end program, with the kselftests' cache observer.
"${cc[@]}" -Werror -Wno-unused-function -I"$TREE/tools/testing/selftests/dmabuf-chain" \
	-o "$root/usr/bin/gst-chain-pipeline" "$here/pipeline.c" "${libs[@]}" ||
	die "userspace/gstreamer/pipeline.c does not compile for arm64"
note "built ${root#"$ROOT"/}: $(cd "$root" && find . -type f | sort | paste -sd' ')"
