#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the GStreamer patches for the arm64 guest, and check that they
# apply to the upstream commit they are sent against.
#
#   userspace/gstreamer/build.sh [GST_SRC]
#
# 1. The guest runs Debian's GStreamer ($GUEST_SUITE's), so its binaries
#    are built from the upstream tarballs Debian builds from (without
#    Debian's own patches), which CI reaches too: gst-plugins-base of the
#    same version as Debian's arm64
#    libgstreamer-plugins-base1.0-dev, and gst-plugins-good of the first
#    suite in GST_GOOD_SUITES whose source the mirror serves. The patches
#    apply to them without their meson.build hunks, which this build does
#    not use; a patch of gst-plugins-good alone that does not apply to a
#    source of another version than the runtime's applies with one line of
#    context (git apply -C1), and the script says so. The files the patches touch must compile
#    without warnings against Debian's arm64 development packages.
# 2. With GST_SRC, a GStreamer git repository (a partial clone of
#    gst-plugins-base and gst-plugins-good will do): the patches must apply
#    with git am to GST_UPSTREAM_COMMIT (upstream), and the files they
#    touch there must compile without warnings too.
#
# Writes build/gstreamer/: src/ (Debian's sources), release/ (the patched
# sources, a git repository whose first commit is Debian's), upstream/
# (with GST_SRC, the same for the upstream commit), sysroot/ (the Debian
# packages), and root/, laid out as the guest's /usr:
#   lib/aarch64-linux-gnu/libgstallocators-1.0.so.0, in place of Debian's;
#   lib/aarch64-linux-gnu/gstreamer-1.0/libgstvideo4linux2.so, in place of
#     Debian's V4L2 plugin;
#   bin/dmabufchain-check, the unit test (gst-check);
#   bin/gst-chain-pipeline, the end-to-end program (pipeline.c).

. "$(dirname "$0")/../../scripts/common.sh"

[ $# -le 1 ] || die "usage: $PROG [GST_SRC]"
gst_src=${1:-}
here=$ROOT/userspace/gstreamer
# shellcheck source=upstream
. "$here/upstream"
# The mirror this project is developed on lacks trixie's gst-plugins-good
# source (1.26.2); bookworm's (1.22.0) is there.
GST_GOOD_SUITES=("$GUEST_SUITE" bookworm)
work=$BUILD/gstreamer
sysroot=$work/sysroot
patches=("$here"/patches/*.patch)
git_as_upstream=(git -c user.name=upstream -c user.email=upstream@invalid
		 -c commit.gpgsign=false -c core.hooksPath=/dev/null)

# A new git repository in $1 whose first commit, message $2, is what $1
# holds.
commit_tree()
{
	git -C "$1" init -q &&
		git -C "$1" add -A &&
		"${git_as_upstream[@]}" -C "$1" commit -q -m "$2" ||
		die "cannot commit $2 in $1"
}

note "fetching Debian's arm64 GStreamer development packages"
"$ROOT/scripts/fetch-debs.sh" arm64 "$sysroot" libc6-dev \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev >/dev/null
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig
release=$(pkg-config --modversion gstreamer-plugins-base-1.0) ||
	die "pkg-config finds no gstreamer-plugins-base-1.0 in $sysroot"

note "fetching Debian's GStreamer sources"
rm -rf "$work/src" "$work/release"
mkdir -p "$work/release/subprojects"
read -r base_suite base_version dir < <("$ROOT/scripts/fetch-source.sh" "$work/src" \
	gst-plugins-base1.0 "$GUEST_SUITE") && [ -n "$dir" ] || exit 1
# The library replaces Debian's: the same release.
[ "${base_version%%-*}" = "$release" ] ||
	die "$GUEST_SUITE has gst-plugins-base1.0 $base_version, its arm64 packages $release"
mv "$dir" "$work/release/subprojects/gst-plugins-base"
read -r good_suite good_version dir < <("$ROOT/scripts/fetch-source.sh" "$work/src" \
	gst-plugins-good1.0 "${GST_GOOD_SUITES[@]}") && [ -n "$dir" ] || exit 1
mv "$dir" "$work/release/subprojects/gst-plugins-good"
commit_tree "$work/release" "Debian's gst-plugins-base1.0 $base_version ($base_suite), gst-plugins-good1.0 $good_version ($good_suite)"
for patch in "${patches[@]}"; do
	apply=(git -C "$work/release" apply --index --exclude=meson.build --exclude='*/meson.build')
	"${apply[@]}" "$patch" 2>"$work/apply.log" && continue
	# Only a patch of gst-plugins-good alone, whose source is not the
	# runtime's version, may apply with less context.
	if [ "${good_version%%-*}" = "$release" ] ||
	   grep '^+++ b/' "$patch" | grep -qv '^+++ b/subprojects/gst-plugins-good/'; then
		cat "$work/apply.log" >&2
		die "$(basename "$patch") does not apply to Debian's GStreamer"
	fi
	"${apply[@]}" -C1 "$patch" 2>"$work/apply.log" ||
		{ cat "$work/apply.log" >&2; die "$(basename "$patch") does not apply to Debian's GStreamer"; }
	note "$(basename "$patch") applies to gst-plugins-good $good_version with one line of context"
done
note "building Debian's GStreamer with the patches for arm64"

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
#define VERSION "${good_version%%-*}"
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

compile "$base/tests/check/libs/dmabufchain.c" "$obj"
"${cc[@]}" -o "$root/usr/bin/dmabufchain-check" "$obj/dmabufchain.o" "${libs[@]}"

# The end-to-end program, with the kselftests' cache observer.
"${cc[@]}" -Werror -Wno-unused-function -I"$TREE/tools/testing/selftests/dmabuf-chain" \
	-o "$root/usr/bin/gst-chain-pipeline" "$here/pipeline.c" "${libs[@]}" ||
	die "userspace/gstreamer/pipeline.c does not compile for arm64"
# What is sent is the upstream form: with GST_SRC, the patches must apply
# to their commit with git am, and the files they touch must compile
# without warnings there too, against Debian's headers and their own.
if [ -n "$gst_src" ]; then
	git -C "$gst_src" cat-file -e "$GST_UPSTREAM_COMMIT^{commit}" 2>/dev/null ||
		die "$gst_src has no GStreamer commit $GST_UPSTREAM_COMMIT"
	rm -rf "$work/upstream"
	mkdir -p "$work/upstream"
	# A partial clone may lack other subprojects' objects; git says so.
	git -C "$gst_src" archive "$GST_UPSTREAM_COMMIT" \
		subprojects/gst-plugins-base subprojects/gst-plugins-good \
		2> >(grep -v '^error: invalid object' >&2) |
		tar -x -C "$work/upstream" ||
		die "cannot read gst-plugins-base and gst-plugins-good of $GST_UPSTREAM_COMMIT from $gst_src"
	commit_tree "$work/upstream" "GStreamer $GST_UPSTREAM_COMMIT"
	"${git_as_upstream[@]}" -C "$work/upstream" am -q "${patches[@]}" ||
		die "the patches do not apply to GStreamer $GST_UPSTREAM_COMMIT"
	note "the ${#patches[@]} patches apply to $GST_UPSTREAM_COMMIT"
	up=$work/upstream/subprojects
	for file in $(git -C "$work/upstream" diff --name-only "HEAD~${#patches[@]}" -- '*.c'); do
		"${cc[@]}" -I"$up/gst-plugins-base/gst-libs" -DHAVE_CONFIG_H -I"$obj/v4l2" \
			-I"$(dirname "$work/upstream/$file")" -Werror -fsyntax-only \
			"$work/upstream/$file" || die "$file of upstream does not compile for arm64"
	done
fi
note "built ${root#"$ROOT"/}: $(cd "$root" && find . -type f | sort | paste -sd' ')"
