#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test: the body of "make test" and "make".
#
#   test.sh [KIND...]   KIND is base or series (default: both)
#
# STATIC=0 skips the static checks of the series. Every step adds result
# rows (kernel, suite, passed, failed, skipped, note) to build/results.tsv;
# the report at the end sums them, and the exit status is non-zero if
# anything failed. Step logs are in build/logs/.

. "$(dirname "$0")/common.sh"

kinds=(base series)
[ $# -eq 0 ] || kinds=("$@")
results=$BUILD/results.tsv
logs=$BUILD/logs

mkdir -p "$logs"
: >"$results"

row()
{
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"
}

# Run a step with its output in $logs/$name.log; on failure record a row
# that points at the log, print its tail, and return non-zero.
step()
{
	local kernel=$1 name=$2 log=$logs/$1-$2.log start

	shift 2
	start=$SECONDS
	note "$kernel: $name"
	if "$@" >"$log" 2>&1; then
		echo "$((SECONDS - start))" >"$log.seconds"
		return 0
	fi
	tail -n 20 "$log" >&2
	row "$kernel" "$name" 0 1 0 "see ${log#"$ROOT"/}: $(grep -m1 'error' "$log" | cut -c1-120 || true)"
	return 1
}

run_kernel()
{
	local kind=$1 out src=$TREE

	out=$(kernel_out "$kind")
	[ "$kind" = series ] || src=$BUILD/linux-base
	step "$kind" build "$ROOT/scripts/build-kernel.sh" "$kind" || return 0
	step "$kind" initramfs "$ROOT/selftests/mkinitramfs.sh" "$out" || return 0
	step "$kind" boot "$ROOT/selftests/run-qemu.sh" "$out" || true
	"$ROOT/kunit/results.py" --kernel "$kind" --src "$src" \
		--expect "$ROOT/kunit/expected-suites" \
		--log "$logs/$kind-kunit.log" "$out/console.log" >>"$results" ||
		row "$kind" kunit 0 1 0 "results.py failed"
	"$ROOT/selftests/tap.py" --kernel "$kind" "$out/kselftest.tap" >>"$results" ||
		row "$kind" kselftest 0 1 0 "tap.py failed"
	"$ROOT/scripts/check-console.sh" "$kind" "$out/console.log" >>"$results" ||
		row "$kind" "console clean" 0 1 0 "check-console.sh failed"
}

if ! step setup install-deps "$ROOT/scripts/install-deps.sh" ||
   ! step setup tree "$ROOT/scripts/series.sh" tree; then
	"$ROOT/scripts/report.sh" "$results"
	exit 1
fi
row setup "series applies to the base" 1 0 0 ""

if [ "${STATIC:-1}" != 0 ]; then
	"$ROOT/scripts/check-series.sh" >>"$results" ||
		row static "static checks" 0 1 0 "check-series.sh failed"
fi
for kind in "${kinds[@]}"; do
	run_kernel "$kind"
done

"$ROOT/scripts/report.sh" "$results"
