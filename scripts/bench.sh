#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make bench": build the base and the series kernels, boot
# each once with only the benchmark's programs, the dmabuf-chain
# kselftests chain_bench and v4l2_chain (whose pool tests are S3), and
# compare them with bench/report.py into build/bench/: results.csv,
# results.md, headline.md and maintenance.svg. Prints the headline; fails
# if a row breaks the series' promises (see report.py), a test that
# selftests/expected-results requires of that kernel did not pass, or a
# boot's console is not clean.

. "$(dirname "$0")/common.sh"

dir=$BUILD/bench
programs=dmabuf-chain:v4l2_chain,dmabuf-chain:chain_bench
mkdir -p "$dir"
for kind in base series; do
	out=$(kernel_out "$kind")
	note "$kind: build"
	"$ROOT/scripts/build-kernel.sh" "$kind" >"$dir/$kind-build.log" 2>&1 ||
		die "building $kind failed: see ${dir#"$ROOT"/}/$kind-build.log"
	"$ROOT/selftests/mkinitramfs.sh" "$out" >"$dir/$kind-initramfs.log" 2>&1 ||
		die "the $kind initramfs failed: see ${dir#"$ROOT"/}/$kind-initramfs.log"
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
