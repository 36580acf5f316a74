#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an arm64 test kernel and its kselftests, out of tree and
# incrementally.
#
#   build-kernel.sh base|series
#
# "base" is the pristine base (tag "base" of build/linux, unpacked into
# build/linux-base), "series" is build/linux with the series applied. The
# configuration is allnoconfig plus the fragments of kernel_fragments in
# common.sh: the QEMU platform, the kselftests' config files, the board
# fragment and the built-in KUnit suites; DEBUG=1 adds the debug fragment
# and builds into its own directory. The results land in
# build/out/<kind>[-debug]/: the kernel, its modules, the benchmark's
# modules and the installed kselftests.
#
# With ccache and root, every tree compiles at the same path,
# build/src (SHARED_SRC in common.sh), and ccache's cache
# ($CACHE/ccache) hands the series and the debug build the objects of
# the files the base or an earlier run compiled alike. The modules are
# installed into build/out/<kind>[-debug]/modules-install for the
# initramfs, since that path exists only during the build.
#
# The configuration is made again at every run, so that a Kconfig change
# in the tree is checked against the fragments too; kbuild rebuilds only
# what a changed option touches.

. "$(dirname "$0")/common.sh"

kind=${1:-}
case "$kind" in
base | series) ;;
*) die "usage: $PROG base|series" ;;
esac

if [ -z "${SHARED_SRC_TREE:-}" ] && can_share_objects; then
	exec unshare --mount --propagation private env SHARED_SRC_TREE=1 "$0" "$@"
fi

out=$(kernel_out "$kind")
selftests=${SELFTEST_TARGETS:-dmabuf-heaps}

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"

if [ "$kind" = base ]; then
	src=$BUILD/linux-base
	source_id=$(git -C "$TREE" rev-parse base)
	if [ "$(cat "$src/.base-commit" 2>/dev/null)" != "$source_id" ]; then
		note "unpacking the base into $src"
		rm -rf "$src"
		mkdir -p "$src"
		git -C "$TREE" archive base | tar -x -C "$src"
		echo "$source_id" >"$src/.base-commit"
	fi
else
	src=$TREE
	source_id=$(cat "$TREE/.git/dmabuf-tree-id" 2>/dev/null || git -C "$TREE" rev-parse base)
fi

if [ -n "${SHARED_SRC_TREE:-}" ]; then
	mkdir -p "$SHARED_SRC"
	mount --bind "$src" "$SHARED_SRC"
	src=$SHARED_SRC
	export CCACHE_DIR=$CACHE/ccache CCACHE_NOHASHDIR=1
	export KBUILD_CC="ccache ${CROSS_COMPILE}gcc"
fi

# Objects built from another source tree may look newer than its files.
if [ "$(cat "$out/.source-id" 2>/dev/null)" != "$source_id" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	echo "$source_id" >"$out/.source-id"
fi

# Every option the fragments set must survive, as the last fragment that
# names it sets it, unless this tree does not have it at all (the base
# lacks the series' own options).
check_config()
{
	local line sym bad=0

	while read -r line; do
		sym=${line%%=*}
		sym=${sym#CONFIG_}
		case "$line" in
		*=n) grep -q "^# CONFIG_$sym is not set" "$out/.config" && continue ;;
		*) grep -qxF "$line" "$out/.config" && continue ;;
		esac
		if grep -rqE "^\s*(menu)?config $sym\s*$" --include='Kconfig*' "$src"; then
			note "$line from the fragments is not in the configuration"
			bad=1
		fi
	done < <(awk -F= '/^CONFIG_/ { if (!($1 in last)) order[n++] = $1; last[$1] = $0 }
		END { for (i = 0; i < n; i++) print last[order[i]] }' "$out/fragments.config")
	[ "$bad" -eq 0 ] || die "the configuration fragments do not apply to $kind"
}

note "configuring $(basename "$out")"
kconfig "$src" "$out"
check_config

note "building $(basename "$out") kernel and modules"
kmake -C "$src" O="$out" Image modules

# The base lacks the series' test DMA engine: bench/ builds the series'
# own source against it, out of tree (see bench/Kbuild).
note "building the benchmark modules"
# Built afresh: kbuild does not rebuild an external module's
# .module-common.o, which holds the vermagic, when the configuration changes.
rm -rf "$out/bench"
kmake -C "$out" M="$ROOT/bench" MO="$out/bench" SERIES_TREE="$TREE" modules

note "installing the modules into $out/modules-install"
rm -rf "$out/modules-install"
kmake -C "$out" INSTALL_MOD_PATH="$out/modules-install" INSTALL_MOD_STRIP=1 modules_install
kmake -C "$out" M="$ROOT/bench" MO="$out/bench" INSTALL_MOD_PATH="$out/modules-install" \
	INSTALL_MOD_STRIP=1 modules_install

note "building kselftests: $selftests"
install=$out/kselftest/kselftest_install
rm -rf "$install"
kmake -C "$src" O="$out" TARGETS="$selftests" kselftest-install >/dev/null

# The series' kselftests run on the base too, built from the series with
# its uapi headers: the same binaries report what the base costs. They
# join the kernel's own installation, list included. The series' tree is
# not configured for $out/series-uapi, so its selftests' own make
# installs them.
note "building the series' kselftests: dmabuf-chain"
chain=$out/series-uapi/kselftest/kselftest_install
rm -rf "$chain"
kmake -C "$TREE" O="$out/series-uapi" headers
kmake -C "$TREE/tools/testing/selftests" O="$out/series-uapi" TARGETS=dmabuf-chain \
	USERLDFLAGS=-static install >/dev/null
cp -a "$chain/dmabuf-chain" "$install/"
cat "$chain/kselftest-list.txt" >>"$install/kselftest-list.txt"
