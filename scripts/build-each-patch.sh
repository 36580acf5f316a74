#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every patch of the series builds on its own: build the
# series kernel's configuration at each commit of base..series in turn,
# incrementally, in a worktree of its own (build/each-patch) and an output
# directory of its own (build/out/each-patch). The objects of the C files
# a patch touches that this configuration builds are then built again
# with W=1 and must not warn. Prints one result row per patch.

. "$(dirname "$0")/common.sh"

worktree=$BUILD/each-patch
out=$BUILD/out/each-patch
logs=$BUILD/logs/each-patch

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
mkdir -p "$out" "$logs"

# Called as an "if" condition, where set -e does not apply: each step
# returns on failure by itself.
build_patch()
{
	local commit=$1 objects=() file warnings

	worktree_at "$worktree" "$commit" || return 1
	kconfig "$worktree" "$out" || return 1
	kmake -C "$worktree" O="$out" Image || return 1
	for file in $(git -C "$TREE" diff --name-only --diff-filter=AM \
			"$commit^" "$commit" -- '*.c' ':!tools/'); do
		file=${file%.c}.o
		[ -f "$out/$(dirname "$file")/.$(basename "$file").cmd" ] && objects+=("$file")
	done
	[ ${#objects[@]} -gt 0 ] || return 0
	warnings=$(kmake -C "$worktree" O="$out" W=1 "${objects[@]}" 2>&1) ||
		{ echo "$warnings"; return 1; }
	echo "$warnings"
	! grep -qi 'warning' <<<"$warnings"
}

n=0
for commit in $(git -C "$TREE" rev-list --reverse base..series); do
	n=$((n + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$commit")
	log=$logs/$(printf '%04d' "$n").log
	if build_patch "$commit" >"$log" 2>&1; then
		printf 'static\tbuilds: %s\t1\t0\t0\t\n' "$subject"
	else
		printf 'static\tbuilds: %s\t0\t1\t0\tsee %s\n' "$subject" "${log#"$ROOT"/}"
	fi
done
[ "$n" -gt 0 ] || printf 'static\tbuilds: each patch\t0\t0\t1\tno patches yet\n'
