#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test: the body of "make test" and "make".
#
#   test.sh [KIND...]   KIND is base, series or debug (default: all three),
#                       or kunit (make kunit: kunit.py on arm64 too)
#
# "debug" is the series built with kernel-overlay/configs/debug.config
# (lockdep, KASAN, UBSAN, DMA-API debugging, kmemleak, fault injection):
# every suite runs on it too, in two boots side by side (see boot_kind),
# and any report on either console fails the run.
# The static checks run at nice 19 from the start. While a kernel boots (a
# TCG boot keeps about one core busy), the next one builds, and kunit.py
# runs during the last boot: drivers/dma-buf/.kunitconfig on UML, and a
# check that the arm64 .kunitconfig files configure (make kunit runs
# them).
# When the base and the series booted in this run, the benchmark's rows of their
# boots (dmabuf-chain:chain_bench, and v4l2_chain's S3) are compared by
# bench/report.py into build/bench/, and its headline ends the output;
# then the uapi's GStreamer user space is built from Debian's sources and
# runs on both (userspace/gstreamer, make userspace).
# STATIC=0 skips the static checks of the series. Every step adds result
# rows (kernel, suite, passed, failed, skipped, note) to build/results.tsv;
# the report at the end sums them, and the exit status is non-zero if
# anything failed. Step logs are in build/logs/.

. "$(dirname "$0")/common.sh"

# The debug kernel is one of the kinds: DEBUG from the caller must not turn
# the others into debug builds.
unset DEBUG
kinds=(base series debug)
[ $# -eq 0 ] || kinds=("$@")
# "kunit" is not a kernel: it adds kunit.py's arm64 run of the series
# (make kunit), after every boot, to the UML run that ends every run with
# the series.
kunit_arm64=0
requested=("${kinds[@]}")
kinds=()
for kind in "${requested[@]}"; do
	case "$kind" in
	base | series | debug) kinds+=("$kind") ;;
	kunit) kunit_arm64=1 ;;
	*) die "unknown kind '$kind': base, series, debug or kunit" ;;
	esac
done
check_kselftest_filter
results=$BUILD/results.tsv
logs=$BUILD/logs
headline=$BUILD/bench/headline.md

mkdir -p "$logs"
: >"$results"
# Printed at the end only if this run's report wrote it.
rm -f "$headline"

row()
{
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"
}

# Where a running step is, from the last of the files $@ that says so:
# the KUnit suite or kselftest program a boot runs (its log, console and
# TAP, in the order they fill), the part of a build, kunit.py's newest
# line.
progress()
{
	local f line at=

	for f in "$@"; do
		[ -e "$f" ] || continue
		line=$(grep -aE '^\[[ 0-9.]+\] {1,5}# Subtest: |^# selftests: |^build-kernel.sh: |^\[[0-9:]+\] ' \
			"$f" | tail -n 1 || true)
		[ -z "$line" ] || at=$line
	done
	echo "$at" | sed -E 's/^\[[ 0-9.]+\] +# Subtest: /KUnit suite /;
		s/^# selftests: /kselftest /; s/^build-kernel.sh: //' | cut -c1-100
}

# Every minute of step $1, a line saying where it is, from its log $2 and
# the files after it.
watch_step()
{
	local label=$1 start=$SECONDS line

	shift
	# Killed at the step's end: no sleep left to hold the output open.
	trap 'kill $! 2>/dev/null; exit 0' TERM
	while :; do
		sleep 60 &
		wait $!
		# test.sh itself was killed.
		kill -0 $$ 2>/dev/null || exit 0
		line=$(progress "$@")
		note "$label, $(((SECONDS - start) / 60)) min${line:+: $line}"
	done
}

# Run a step with its output in $logs/$name.log (with V=1, on the terminal
# too); on failure record a row that points at the log, print its tail,
# and return non-zero. A boot step names its console and TAP in $watch,
# for its progress lines.
step()
{
	local kernel=$1 name=$2 log=$logs/$1-$2.log start last watcher status=0

	shift 2
	start=$SECONDS
	# What a long step took last time on this machine, so that it does
	# not look hung.
	last=$(cat "$log.seconds" 2>/dev/null || true)
	[ "${last:-0}" -ge 30 ] || last=
	note "$kernel: $name${last:+ (last time $last s)}"
	if [ "${V:-0}" != 0 ]; then
		if ! "$@" 2>&1 | tee "$log"; then
			status=${PIPESTATUS[0]}
		fi
	else
		rm -f "$log"
		watch_step "$kernel: $name" "$log" ${watch:-} &
		watcher=$!
		"$@" >"$log" 2>&1 || status=$?
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null || true
	fi
	if [ "$status" -eq 0 ]; then
		echo "$((SECONDS - start))" >"$log.seconds"
		return 0
	fi
	[ "${V:-0}" != 0 ] || tail -n 20 "$log" >&2
	row "$kernel" "$name" 0 1 0 "see ${log#"$ROOT"/}: $(grep -m1 'error' "$log" | cut -c1-120 || true)"
	return 1
}

# The source tree of kind $1 ("debug" is the series) and its DEBUG value.
kind_tree()
{
	if [ "$1" = debug ]; then echo series; else echo "$1"; fi
}

kind_debug()
{
	if [ "$1" = debug ]; then echo 1; else echo 0; fi
}

# Build kind $1 and its initramfs; $logs/$1.built says that both worked.
build_kind()
{
	local kind=$1 tree debug

	tree=$(kind_tree "$kind")
	debug=$(kind_debug "$kind")
	rm -f "$logs/$kind.built"
	step "$kind" build env DEBUG="$debug" "$ROOT/scripts/build-kernel.sh" "$tree" &&
		step "$kind" initramfs "$ROOT/selftests/mkinitramfs.sh" \
			"$(DEBUG=$debug kernel_out "$tree")" &&
		touch "$logs/$kind.built"
}

# Boot kind $1 if it was built, and collect its results.
boot_kind()
{
	local kind=$1 tree debug out src=$TREE

	[ -e "$logs/$kind.built" ] || return 0
	tree=$(kind_tree "$kind")
	debug=$(kind_debug "$kind")
	out=$(DEBUG=$debug kernel_out "$tree")
	[ "$tree" = series ] || src=$BUILD/linux-base
	# KUnit, then every kselftest, with RAM above 4 GiB as on most boards:
	# 32-bit devices may bounce, and the tests see where they do.
	if [ "$kind" != debug ]; then
		watch="$out/console.log $out/kselftest.tap" \
			step "$kind" boot env QEMU_TIMEOUT="$(boot_timeout "$kind")" \
			KERNEL_ARGS="$(boot_args "$kind")" \
			"$ROOT/selftests/run-qemu.sh" "$out" && booted+=("$kind") || true
		boot_results "$kind" "$src" "$out" "" "$logs" >>"$results"
		return 0
	fi
	# The debug kernel ends the run, when no kernel is left to build: it
	# boots twice side by side, about a core each. One boot (tag "kunit")
	# runs the KUnit suites, then the longest kselftest, chain_bench; the
	# other runs the other kselftests without KUnit, at nice 10, so that
	# the KUnit boot's dma-buf-fence race, which has 50 ms to run (see
	# beside_boot), keeps its core. A KSELFTEST_FILTER of the caller's
	# goes to the second boot whole. Both consoles must be clean; each
	# boot ends with its kmemleak scan and its DMA-API error count.
	# The second boot's filter excludes, so that a program missing from
	# the installed list still fails as not run.
	local pid status=0 bench=dmabuf-chain:chain_bench first=none rest=${KSELFTEST_FILTER:-}

	if [ -z "$rest" ]; then
		first=$bench
		rest=-$bench
	fi
	watch="$out/console-kunit.log $out/kselftest-kunit.tap" \
		step "$kind" boot-kunit env QEMU_TIMEOUT="$(boot_timeout "$kind")" \
		KERNEL_ARGS="$(boot_args "$kind")" KSELFTEST_FILTER="$first" \
		"$ROOT/selftests/run-qemu.sh" "$out" kunit &
	pid=$!
	watch="$out/console.log $out/kselftest.tap" \
		step "$kind" boot-kselftest nice -n 10 env QEMU_TIMEOUT="$(boot_timeout "$kind")" \
		KERNEL_ARGS="$(boot_args "$kind") kunit.enable=0" KSELFTEST_FILTER="$rest" \
		"$ROOT/selftests/run-qemu.sh" "$out" || status=1
	wait "$pid" || status=1
	[ "$status" -ne 0 ] || booted+=("$kind")
	{
		KSELFTEST_FILTER=$first boot_results "$kind" "$src" "$out" kunit "$logs" kunit
		KSELFTEST_FILTER=$rest boot_results "$kind" "$src" "$out" "" "$logs" kselftest
	} >>"$results"
}

# The series' KUnit suites as reviewers run them: the tree's own kunit.py
# builds a kernel from the .kunitconfig of drivers/dma-buf, of the heaps
# and of kernel/dma in build/kunit/series (out of tree: O= keeps
# build/linux clean) and boots it in its arm64 QEMU VM (1 GiB, 1 CPU, all
# RAM below 4 GiB). PYTHONDONTWRITEBYTECODE keeps kunit.py from leaving
# __pycache__ in the source tree.
kunit_tool()
{
	PYTHONDONTWRITEBYTECODE=1 python3 "$TREE/tools/testing/kunit/kunit.py" run \
		--arch=arm64 --cross_compile="$CROSS_COMPILE" \
		--kunitconfig=drivers/dma-buf --kunitconfig=drivers/dma-buf/heaps \
		--kunitconfig=kernel/dma --build_dir="$1" --jobs="$JOBS" \
		--timeout="${QEMU_TIMEOUT:-900}" ${KERNEL_ARGS:+--kernel_args="$KERNEL_ARGS"}
}

# Without the arm64 run, kunit.py still configures it: an option of the
# three .kunitconfig files that the arm64 configuration drops fails.
# kunit.py validates only a .config it makes, not one it finds.
kunit_config()
{
	rm -f "$1/.config"
	PYTHONDONTWRITEBYTECODE=1 python3 "$TREE/tools/testing/kunit/kunit.py" config \
		--arch=arm64 --cross_compile="$CROSS_COMPILE" \
		--kunitconfig=drivers/dma-buf --kunitconfig=drivers/dma-buf/heaps \
		--kunitconfig=kernel/dma --build_dir="$1"
}

# drivers/dma-buf/.kunitconfig alone, on kunit.py's default architecture,
# UML, as "kunit.py run --kunitconfig=drivers/dma-buf" runs it on v7.3.
kunit_uml()
{
	PYTHONDONTWRITEBYTECODE=1 python3 "$TREE/tools/testing/kunit/kunit.py" run \
		--kunitconfig=drivers/dma-buf --build_dir="$1" --jobs="$JOBS" \
		--timeout="${QEMU_TIMEOUT:-900}"
}

# kunit.py's runs $@: "series" on arm64, "uml", or "config" (the arm64
# run configured only). A failed, crashed or unbuilt run fails the step;
# the suites' rows ("kunit.py SUITE") come from kunit.py parse of its raw
# log, as for the boots, held to kunit/expected-results under the label
# "kunit.py" (arm64) or "uml".
run_kunit_tool()
{
	local kernel tool dir label

	for kernel in "$@"; do
		if [ "$kernel" = config ]; then
			mkdir -p "$BUILD/kunit/series"
			step series kunit.py-config kunit_config "$BUILD/kunit/series" &&
				row series "kunit.py config (arm64 .kunitconfig files)" 1 0 0 ""
			continue
		fi
		tool=kunit_tool label=kunit.py
		[ "$kernel" = uml ] && tool=kunit_uml label=uml
		dir=$BUILD/kunit/$kernel
		mkdir -p "$dir"
		rm -f "$dir/test.log"
		step "$kernel" kunit.py "$tool" "$dir" || true
		PYTHONDONTWRITEBYTECODE=1 "$ROOT/kunit/results.py" --kernel "$kernel" \
			--label "$label" --tool kunit.py --src "$TREE" \
			--expect "$ROOT/kunit/expected-results" \
			--log "$logs/$kernel-kunit.py-results.log" "$dir/test.log" >>"$results" ||
			row "$kernel" kunit.py 0 1 0 "results.py failed"
	done
}

# The series' promises against the base, on the benchmark's rows of both
# boots; the same report as make bench's.
bench_report()
{
	local log=$logs/bench-report.log

	if "$ROOT/bench/report.py" --base "$(kernel_out base)/kselftest.tap" \
		--series "$(kernel_out series)/kselftest.tap" --out "$BUILD/bench" >"$log" 2>&1; then
		row series "chain_bench against the base" 1 0 0 ""
	else
		row series "chain_bench against the base" 0 1 0 "see ${log#"$ROOT"/}"
		rm -f "$headline"
	fi
}

if ! step setup install-deps "$ROOT/scripts/install-deps.sh" ||
   ! step setup tree "$ROOT/scripts/series.sh" tree; then
	"$ROOT/scripts/report.sh" "$results"
	exit 1
fi
row setup "series applies to the base" 1 0 0 ""

static_checks()
{
	"$ROOT/scripts/check-series.sh" >>"$results" ||
		row static "static checks" 0 1 0 "check-series.sh failed"
}

# Only from boots of this run: a kernel that did not boot left an old TAP.
booted=()
# A boot under TCG keeps about one core busy: meanwhile the next kernel
# builds, and kunit.py runs during the last boot, both at the lowest
# priority. The boot's timed tests come first: dma-buf-fence's
# test_race_signal_callback stops its two threads after 50 ms and fails
# (-EINTR) if one has not run by then. It failed in one CI run, beside a
# build at equal priority.
beside_boot()
{
	renice -n 19 -p "$BASHPID" >/dev/null
	"$@"
}

# The static checks, mostly one process at a time, run from the start
# at the lowest priority, on what the builds and boots leave of the
# cores (a warm run's first boots leave one idle).
static_pid=
if [ "${STATIC:-1}" != 0 ]; then
	beside_boot static_checks &
	static_pid=$!
fi
[ ${#kinds[@]} -eq 0 ] || build_kind "${kinds[0]}" || true
for i in "${!kinds[@]}"; do
	kind=${kinds[$i]}
	next=${kinds[$((i + 1))]:-}
	pids=()
	if [ -n "$next" ]; then
		beside_boot build_kind "$next" &
		pids+=($!)
	fi
	if [[ " ${kinds[*]} " == *" series "* && -z "$next" ]]; then
		if [ "$kunit_arm64" = 1 ]; then
			beside_boot run_kunit_tool uml &
		else
			beside_boot run_kunit_tool uml config &
		fi
		pids+=($!)
	fi
	boot_kind "$kind"
	for pid in "${pids[@]}"; do
		wait "$pid" || true
	done
done
# kunit.py on arm64 after every boot: beside one, it outlasted its
# timeout in CI. Without the series among the kinds, the UML run too.
if [ "$kunit_arm64" = 1 ]; then
	if [[ " ${kinds[*]} " == *" series "* ]]; then
		run_kunit_tool series
	else
		run_kunit_tool series uml
	fi
fi
[ -z "$static_pid" ] || wait "$static_pid" || true
if [[ " ${booted[*]} " == *" base "* && " ${booted[*]} " == *" series "* ]]; then
	bench_report
	# The uapi's user space (make userspace), on the same two kernels.
	step userspace build "$ROOT/userspace/gstreamer/build.sh" &&
		step userspace run "$ROOT/userspace/gstreamer/run.sh" &&
		row userspace "GStreamer's device chains on base and series" 1 0 0 "" || true
fi

status=0
"$ROOT/scripts/report.sh" "$results" || status=$?
if [ -s "$headline" ]; then
	echo
	cat "$headline"
	echo
	echo "All rows, the plot and the method: build/bench/results.md, Documentation/benchmarks.md"
fi
exit "$status"
