#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Break the series on purpose and show which test catches each breakage:
# the body of "make mutate".
#
#   mutate.sh [NAME...]   NAME is a file of kernel-overlay/mutations/
#                         without .patch (default: all of them)
#
# Each mutation is applied to build/linux, the series kernel is rebuilt
# incrementally and booted as "make test" boots it, and every failing
# result row is reported; the mutation is then reverted. A
# mutation that no test catches is a failure of the run. At the end the
# kernel is rebuilt from the unmodified tree. Logs: build/mutate/.
#
# A mutation with a line "Kernel: debug" breaks what only the debug
# kernel sees (a leak, a lock order): it is booted on the debug build
# with no KUnit and the kselftests of its line "Filter: COLLECTION:PROGRAM"
# alone (default dmabuf-chain:device_chain), and only those kselftests
# and the console can catch it.

. "$(dirname "$0")/common.sh"

dir=$ROOT/kernel-overlay/mutations
logs=$BUILD/mutate

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes; commit or export them first"

names=("$@")
[ ${#names[@]} -gt 0 ] ||
	mapfile -t names < <(find "$dir" -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort)

mkdir -p "$logs"
table=$logs/table.tsv
: >"$table"
missed=0

revert()
{
	git -C "$TREE" checkout -q -- .
}
trap revert EXIT

for name in "${names[@]}"; do
	patch=$dir/$name.patch
	[ -f "$patch" ] || die "no mutation $name"
	note "$name: $(head -1 "$patch" | sed 's/^Mutation: //')"
	git -C "$TREE" apply "$patch" || die "$name does not apply to build/linux"
	rows=$logs/$name.tsv
	: >"$rows"
	debug=0
	! grep -q '^Kernel: debug$' "$patch" || debug=1
	out=$(DEBUG=$debug kernel_out series)
	if DEBUG=$debug "$ROOT/scripts/build-kernel.sh" series >"$logs/$name-build.log" 2>&1 &&
	   "$ROOT/selftests/mkinitramfs.sh" "$out" >>"$logs/$name-build.log" 2>&1; then
		if [ "$debug" = 1 ]; then
			filter=$(sed -n 's/^Filter: //p' "$patch")
			filter=${filter:-dmabuf-chain:device_chain}
			KSELFTEST_FILTER=$filter KERNEL_ARGS=kunit.enable=0 \
				"$ROOT/selftests/run-qemu.sh" "$out" mut >"$logs/$name-boot.log" 2>&1 || true
			"$ROOT/selftests/tap.py" \
				--kernel debug --filter="$filter" \
				--expect "$ROOT/selftests/expected-results" "$out/kselftest-mut.tap" >>"$rows" || true
			"$ROOT/scripts/check-console.sh" debug "$out/console-mut.log" >>"$rows" || true
		else
			"$ROOT/selftests/run-qemu.sh" "$out" mut >"$logs/$name-boot.log" 2>&1 || true
			boot_results series "$TREE" "$out" mut "$logs" >>"$rows"
		fi
	else
		printf 'series\tbuild\t0\t1\t0\t\n' >>"$rows"
	fi
	revert
	caught=$(awk -F'\t' '$4 > 0 { printf "%s%s %s", sep, $1, $2; sep = "; " }' "$rows")
	[ -n "$caught" ] || { caught="NOT CAUGHT"; missed=$((missed + 1)); }
	printf '%s\t%s\n' "$name" "$caught" >>"$table"
done

note "rebuilding the unmodified series kernels"
for debug in 0 1; do
	[ "$debug" = 0 ] || [ -d "$(DEBUG=1 kernel_out series)" ] || continue
	out=$(DEBUG=$debug kernel_out series)
	DEBUG=$debug "$ROOT/scripts/build-kernel.sh" series >>"$logs/rebuild.log" 2>&1 &&
		"$ROOT/selftests/mkinitramfs.sh" "$out" >>"$logs/rebuild.log" 2>&1 ||
		die "the rebuild failed; see $logs/rebuild.log"
done

printf '\n%-36s %s\n' mutation "caught by (failing rows)"
while IFS=$'\t' read -r name caught; do
	printf '%-36s %s\n' "$name" "$caught"
done <"$table"
printf '\n%d mutation(s), %d not caught\n' "$(wc -l <"$table")" "$missed"
[ "$missed" -eq 0 ]
