#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the project needs, and only those that are
# missing, so that a second run costs nothing.
#
#   install-deps.sh          install what is missing (root: apt-get install,
#                            and nothing else needs root)
#   install-deps.sh --check  list what is missing and exit 1 if anything is,
#                            installing nothing (any user)
#
# Tested on Debian 12. Debian 13 and Ubuntu name these packages alike,
# untested. Elsewhere install the tools these packages name yourself and
# run "--check" to see what is still missing.

. "$(dirname "$0")/common.sh"

check_only=0
case "${1:-}" in
"") ;;
--check) check_only=1 ;;
*) die "usage: $PROG [--check]" ;;
esac

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	die "this is not a Debian or Ubuntu system (no dpkg-query or apt-get)." \
	    "Tested on Debian 12; elsewhere, install the equivalents of the packages" \
	    "listed in $0 yourself."
fi

packages=(
	# fetching the base and working on the series
	apt debian-archive-keyring git b4 xz-utils
	# building the kernel and the arm64 user space
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev perl python3
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
	# objects shared between the base, the series and the debug build
	ccache
	# checkpatch's SPDX check (scripts/spdxcheck.py)
	python3-ply python3-git
	# make check: sparse on the touched files, docutils for the touched .rst
	sparse python3-docutils
	# kselftest install (rsync), depmod for modules_install, boot
	rsync kmod qemu-system-arm
	# the benchmark's plot
	gnuplot-nox
	# make userspace: building against Debian's arm64 GStreamer packages
	pkg-config
)

missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

# Does sparse $1 know __typeof_unqual__? The kernel's headers use it for
# sparse, and without it kbuild turns C=1/C=2 off with only a warning (the
# test of the tree's scripts/checker-valid.sh).
sparse_is_new_enough()
{
	local src status

	src=$(mktemp --suffix=.c)
	printf 'static inline int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' >"$src"
	status=$("$1" "$src" 2>&1 | awk -v c=0 '/error/ { c = 1 } END { print c }')
	rm -f "$src"
	[ "$status" = 0 ]
}

# Debian 12's sparse 0.6.4 is too old for Linux 7.3, and the newer one in
# unstable needs a newer libc. Build the sparse program of unstable's
# source (upstream's as is: Debian's patches only pin its own gcc) once
# into the cache instead; check-series.sh looks there first. A failure
# leaves the "sparse" row of make check to say so.
build_sparse()
{
	local dir=$CACHE/sparse src

	[ -x "$dir/sparse" ] && sparse_is_new_enough "$dir/sparse" && return 0
	note "building sparse from Debian unstable's source package into $dir"
	rm -rf "$dir"
	read -r _ _ src < <("$ROOT/scripts/fetch-source.sh" "$dir/src" sparse sid) &&
		[ -n "$src" ] || return 1
	make -C "$src" -j"$JOBS" CC=gcc sparse >"$dir/build.log" 2>&1 ||
		{ tail -n 20 "$dir/build.log" >&2; return 1; }
	cp "$src/sparse" "$dir/sparse"
	rm -rf "$dir/src"
	sparse_is_new_enough "$dir/sparse"
}

if [ "$check_only" = 1 ]; then
	[ ${#missing[@]} -eq 0 ] || die "missing packages: ${missing[*]}"
	sparse_is_new_enough sparse || [ -x "$CACHE/sparse/sparse" ] ||
		note "no sparse that Linux $BASE_VERSION accepts: 'make check' will fail its sparse row" \
		     "(as root, this script builds one into $CACHE/sparse)"
	note "all packages installed"
	exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] ||
		die "missing packages: ${missing[*]}" \
		    "Run this script as root to install them with apt-get (root is needed for that" \
		    "only), or install them yourself; '$PROG --check' lists what is missing."

	note "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

sparse_is_new_enough sparse || build_sparse ||
	note "warning: no sparse that Linux $BASE_VERSION accepts; 'make check' will fail its sparse row"
