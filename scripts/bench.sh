#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make bench" and "make cputime".
#
# bench.sh: build the base and the series kernels, boot each once with
# only the benchmark's programs, the dmabuf-chain kselftests chain_bench
# and v4l2_chain (whose pool tests are S3), and compare them with
# bench/report.py into build/bench/: results.csv, results.md, headline.md
# and maintenance.svg. Prints the headline; fails if a row breaks the
# series' promises (see report.py), a test that selftests/expected-results
# requires of that kernel did not pass, or a boot's console is not clean.
#
# bench.sh cputime: the CPU time of what importers without flags do, in
# instructions: boot the two kernels in turn CPUTIME_BOOTS times (default
# 1) under QEMU's -icount, where the guest's clock counts instructions,
# each running only "chain_bench -c"; report.py --cputime-only --icount
# keeps each row's fastest run and writes build/cputime/cputime.{md,csv}.
# Fails if a run failed; holds no row to the goal.

. "$(dirname "$0")/common.sh"

mode=${1:-bench}
case "$mode" in
bench)
	dir=$BUILD/bench
	programs=dmabuf-chain:v4l2_chain,dmabuf-chain:chain_bench
	;;
cputime)
	dir=$BUILD/cputime
	boots=${CPUTIME_BOOTS:-1}
	[[ "$boots" =~ ^[1-9][0-9]*$ ]] ||
		die "CPUTIME_BOOTS=$boots is not a positive number"
	rm -rf "$dir"
	;;
*) die "usage: $PROG [bench|cputime]" ;;
esac
[ $# -le 1 ] || die "usage: $PROG [bench|cputime]"

mkdir -p "$dir"
for kind in base series; do
	note "$kind: build"
	"$ROOT/scripts/build-kernel.sh" "$kind" >"$dir/$kind-build.log" 2>&1 ||
		die "building $kind failed: see ${dir#"$ROOT"/}/$kind-build.log"
	"$ROOT/selftests/mkinitramfs.sh" "$(kernel_out "$kind")" \
		>"$dir/$kind-initramfs.log" 2>&1 ||
		die "the $kind initramfs failed: see ${dir#"$ROOT"/}/$kind-initramfs.log"
done

if [ "$mode" = cputime ]; then
	for i in $(seq "$boots"); do
		for kind in base series; do
			out=$(kernel_out "$kind")
			note "$kind: boot $i of $boots, chain_bench -c only"
			QEMU_ICOUNT=1 \
				KERNEL_ARGS="kunit.enable=0 kselftest.run=dmabuf-chain/chain_bench,-c" \
				"$ROOT/selftests/run-qemu.sh" "$out" cputime \
				>"$dir/$kind-boot-$i.log" 2>&1 ||
				die "booting $kind failed: see ${dir#"$ROOT"/}/$kind-boot-$i.log"
			cp "$out/kselftest-cputime.tap" "$dir/$kind-$i.tap"
			# Every row ran and passed: a crash leaves no totals.
			if grep -q '^not ok\|^Bail out' "$dir/$kind-$i.tap" ||
				! grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' "$dir/$kind-$i.tap"; then
				die "$kind: chain_bench -c failed: see ${dir#"$ROOT"/}/$kind-$i.tap"
			fi
		done
	done
	"$ROOT/bench/report.py" --cputime-only --icount --base "$dir"/base-*.tap \
		--series "$dir"/series-*.tap --out "$dir"
	note "results: ${dir#"$ROOT"/}/cputime.md, cputime.csv"
	exit 0
fi

for kind in base series; do
	out=$(kernel_out "$kind")
	note "$kind: boot, $programs only"
	KSELFTEST_FILTER=$programs KERNEL_ARGS=kunit.enable=0 \
		"$ROOT/selftests/run-qemu.sh" "$out" bench >"$dir/$kind-boot.log" 2>&1 ||
		die "booting $kind failed: see ${dir#"$ROOT"/}/$kind-boot.log"
	cp "$out/kselftest-bench.tap" "$dir/$kind.tap"
	"$ROOT/selftests/tap.py" --kernel "$kind" --filter="$programs" \
		--expect "$ROOT/selftests/expected-results" "$dir/$kind.tap" >"$dir/$kind-tests.tsv"
	failed=$(awk -F'\t' '$4 != 0' "$dir/$kind-tests.tsv")
	[ -z "$failed" ] || die "$kind: tests failed; see ${dir#"$ROOT"/}/$kind.tap" "$failed"
	row=$("$ROOT/scripts/check-console.sh" "$kind" "$out/console-bench.log")
	[ "$(cut -f4 <<<"$row")" = 0 ] ||
		die "$kind's console is not clean: see ${out#"$ROOT"/}/console-bench.log"
done

rm -f "$dir/headline.md"
"$ROOT/bench/report.py" --base "$dir/base.tap" --series "$dir/series.tap" --out "$dir" ||
	die "the rows break the series' promises: see ${dir#"$ROOT"/}/results.md"
cat "$dir/headline.md"
note "results: ${dir#"$ROOT"/}/results.md, results.csv, maintenance.svg"
