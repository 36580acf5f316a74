#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every patch of the series builds on its own, on two
# architectures: at each commit of base..series in turn, incrementally, in
# a worktree of its own (build/each-patch), build
#  - arm64 with the series kernel's configuration (build/out/each-patch),
#  - x86_64 with a small one: allnoconfig and the same fragments, which
#    turn on every file the series touches that x86 builds
#    (build/out/each-patch-x86_64).
# The objects of the C files a patch touches that a configuration builds
# are then built again with W=1 and must not warn, and on arm64 the
# kselftest collections it touches are built afresh with its uapi
# headers and must not warn either. Prints one result row per patch and
# architecture. EACH_PATCH_RANGE (default base..series) builds a part
# only, such as the patches a rebase rewrote: series~7..series.

. "$(dirname "$0")/common.sh"

worktree=$BUILD/each-patch
logs=$BUILD/logs/each-patch

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
mkdir -p "$logs"

# make for architecture $ARCH of build_arch; x86_64 builds with the host's
# compiler.
arch_make()
{
	if [ "$ARCH" = arm64 ]; then
		kmake "$@"
	else
		make -s -j"$JOBS" ARCH="$ARCH" "$@"
	fi
}

# Build the kselftest collections that commit $1 touches, for arm64, into
# $2/kselftest/; fails on a warning.
build_selftests()
{
	local commit=$1 out=$2 dir warnings

	for dir in $(git -C "$TREE" diff --name-only "$commit^" "$commit" -- tools/testing/selftests/ |
			sed -n 's|^tools/testing/selftests/\([^/]*\)/.*|\1|p' | sort -u); do
		[ -f "$worktree/tools/testing/selftests/$dir/Makefile" ] || continue
		kmake -C "$worktree" O="$out" headers || return 1
		rm -rf "$out/kselftest/$dir"
		warnings=$(kmake -C "$worktree/tools/testing/selftests" O="$out" TARGETS="$dir" 2>&1) ||
			{ echo "$warnings"; return 1; }
		echo "$warnings"
		! grep -qi 'warning' <<<"$warnings" || return 1
	done
}

# Build commit $1 (checked out in the worktree) for $ARCH into $2.
build_arch()
{
	local commit=$1 out=$2 objects=() file warnings image fragments

	mkdir -p "$out"
	if [ "$ARCH" = arm64 ]; then
		kconfig "$worktree" "$out" || return 1
		image=Image
	else
		mapfile -t fragments < <(kernel_fragments "$worktree")
		cat "${fragments[@]}" >"$out/fragments.config"
		arch_make -C "$worktree" O="$out" KCONFIG_ALLCONFIG="$out/fragments.config" \
			allnoconfig || return 1
		image=bzImage
	fi
	arch_make -C "$worktree" O="$out" "$image" || return 1
	[ "$ARCH" != arm64 ] || build_selftests "$commit" "$out" || return 1
	for file in $(git -C "$TREE" diff --name-only --diff-filter=AM \
			"$commit^" "$commit" -- '*.c' ':!tools/'); do
		file=${file%.c}.o
		[ -f "$out/$(dirname "$file")/.$(basename "$file").cmd" ] && objects+=("$file")
	done
	[ ${#objects[@]} -gt 0 ] || return 0
	warnings=$(arch_make -C "$worktree" O="$out" W=1 "${objects[@]}" 2>&1) ||
		{ echo "$warnings"; return 1; }
	echo "$warnings"
	! grep -qi 'warning' <<<"$warnings"
}

n=0
range=${EACH_PATCH_RANGE:-base..series}
[[ $range == *..* ]] || die "EACH_PATCH_RANGE=$range: a range, such as series~3..series"
wanted=$(git -C "$TREE" rev-list "$range") ||
	die "EACH_PATCH_RANGE=$range is no revision range of build/linux"
[ -n "$wanted" ] || die "EACH_PATCH_RANGE=$range selects no commit"
built=0
for commit in $(git -C "$TREE" rev-list --reverse base..series); do
	n=$((n + 1))
	grep -qx "$commit" <<<"$wanted" || continue
	built=$((built + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$commit")
	worktree_at "$worktree" "$commit" || die "cannot check out $commit in $worktree"
	for ARCH in arm64 x86_64; do
		log=$logs/$(printf '%04d' "$n")-$ARCH.log
		out=$BUILD/out/each-patch
		[ "$ARCH" = arm64 ] || out=$BUILD/out/each-patch-$ARCH
		if build_arch "$commit" "$out" >"$log" 2>&1; then
			printf 'static\tbuilds (%s): %s\t1\t0\t0\t\n' "$ARCH" "$subject"
		else
			printf 'static\tbuilds (%s): %s\t0\t1\t0\tsee %s\n' "$ARCH" "$subject" \
				"${log#"$ROOT"/}"
		fi
	done
done
[ "$n" -gt 0 ] || printf 'static\tbuilds: each patch\t0\t0\t1\tno patches yet\n'
[ "$n" -eq 0 ] || [ "$built" -gt 0 ] || die "EACH_PATCH_RANGE=$range selects no commit of base..series"
