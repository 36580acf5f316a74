#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Break the series on purpose and show which test catches each breakage:
# the body of "make mutate".
#
#   mutate.sh [NAME...]   NAME is a file of kernel-overlay/mutations/
#                         without .patch (default: all of them)
#
# First the unmodified series is built and booted the same way (the
# baseline): a row that fails there would "catch" every mutation, so the
# run stops. Then each mutation is applied to build/linux, the series
# kernel is rebuilt incrementally and booted with the suites "make test"
# boots (in stages, below), and every failing result row is reported;
# the mutation is then reverted. A mutation that no test catches, or
# that does not build, is a failure of the run. At the end the kernel is
# rebuilt from the unmodified tree. Logs: build/mutate/. The table goes
# to build/mutate/table.md, and, when every mutation ran, to
# Documentation/mutations.md, which is committed (a run with
# MUTATE_FILTER does not replace a full run's table there).
#
# Each failing kselftest that printed a data-check message (one that names
# stale or lost words: the engine's cache emulation under QEMU, or a board)
# is also listed in the table's data column, so that the table shows which
# mutations the data checks catch and which only the counts do.
#
# The series boots in stages, so that a mutation takes minutes, not a
# whole boot: KUnit with device_chain and engine_chain (a minute, and
# they catch most mutations), then the other kselftests but chain_bench,
# then chain_bench (7 of a boot's 10 minutes), each without KUnit and
# only if no row failed before. A mutation is caught by the rows that
# failed in the first stage that had one. The baseline boots them all.
#
# MUTATE_FILTER=COLLECTION:PROGRAM[,...] boots the series with those
# kselftests alone and no KUnit (about 20 s a boot, against 2 to 12
# minutes for the stages): a mutation that only other tests catch then
# shows as not caught, and the table says which filter it ran with.
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

all=()
mapfile -t all < <(find "$dir" -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")

mkdir -p "$logs"
project=$(git -C "$ROOT" rev-parse --short HEAD)
table=$logs/table.tsv
: >"$table"
missed=0 broken=0

revert()
{
	git -C "$TREE" checkout -q -- .
}
trap revert EXIT

# Whether mutation $1 breaks what only the debug kernel sees, and the
# kselftests its boot runs.
is_debug() { grep -q '^Kernel: debug$' "$dir/$1.patch"; }
debug_filter()
{
	local filter
	filter=$(sed -n 's/^Filter: //p' "$dir/$1.patch")
	echo "${filter:-dmabuf-chain:device_chain}"
}

# Build the series kernel as build/linux is now (DEBUG=$1) into log $2.
build()
{
	local out
	out=$(DEBUG=$1 kernel_out series)
	DEBUG=$1 "$ROOT/scripts/build-kernel.sh" series >"$2" 2>&1 &&
		"$ROOT/selftests/mkinitramfs.sh" "$out" >>"$2" 2>&1
}

# The failing rows of result file $1, on one line.
failing() { awk -F'\t' '$4 > 0 { printf "%s%s %s", sep, $1, $2; sep = "; " }' "$1"; }

# The kselftests of the series boot's stages (a leading "-" means all
# but those); the first also boots KUnit.
stages=(dmabuf-chain:device_chain,dmabuf-chain:engine_chain
	-dmabuf-chain:device_chain,dmabuf-chain:engine_chain,dmabuf-chain:chain_bench
	dmabuf-chain:chain_bench)
# A stage, or a filtered boot, takes 20 s to 7 minutes; a guest that hangs
# (a mutation that deadlocks) costs this, not a whole boot's timeout. An
# oops panics the guest, which then exits (run-qemu.sh boots with
# panic=-1, -no-reboot).
stage_timeout=1200

# Boot the series kernel (DEBUG=$1; with $1 = 1 the kselftests $2 alone,
# and with MUTATE_FILTER those, no KUnit) and write its result rows to $3;
# logs and TAP are named after $4. A full boot of the series stops after
# the first stage in which a row failed, unless $5 is "all".
boot()
{
	local out kind=series filter=${MUTATE_FILTER:-} i args part
	out=$(DEBUG=$1 kernel_out series)
	[ "$1" != 1 ] || { kind=debug; filter=$2; }
	if [ -n "$filter" ]; then
		# No KUnit, so none of boot_args' sequence counts.
		KSELFTEST_FILTER=$filter KERNEL_ARGS="kunit.enable=0 oops=panic" \
			QEMU_TIMEOUT=${QEMU_TIMEOUT:-$stage_timeout} \
			"$ROOT/selftests/run-qemu.sh" "$out" mut >"$logs/$4-boot.log" 2>&1 || true
		"$ROOT/selftests/tap.py" --kernel $kind --filter="$filter" \
			--expect "$ROOT/selftests/expected-results" "$out/kselftest-mut.tap" >"$3" || true
		"$ROOT/scripts/check-console.sh" $kind "$out/console-mut.log" >>"$3" || true
		cp "$out/kselftest-mut.tap" "$logs/$4.tap" 2>/dev/null || : >"$logs/$4.tap"
		return
	fi
	: >"$3"
	: >"$logs/$4.tap"
	rm -f "$logs/$4"-boot[0-9]*.log
	for i in "${!stages[@]}"; do
		[ "$i" = 0 ] || [ -z "$(failing "$3")" ] || [ "${5:-}" = all ] || return 0
		args="$(boot_args series) oops=panic" part=
		[ "$i" = 0 ] || { args+=" kunit.enable=0"; part=kselftest; }
		KSELFTEST_FILTER=${stages[i]} KERNEL_ARGS=$args QEMU_TIMEOUT=${QEMU_TIMEOUT:-$stage_timeout} \
			"$ROOT/selftests/run-qemu.sh" "$out" "mut$i" >"$logs/$4-boot$i.log" 2>&1 || true
		KSELFTEST_FILTER=${stages[i]} boot_results series "$TREE" "$out" "mut$i" "$logs" $part >>"$3"
		cat "$out/kselftest-mut$i.tap" >>"$logs/$4.tap" 2>/dev/null || true
	done
}

# The failing kselftest subtests of TAP $1 that printed a data-check
# message, each with the first such message: "n: test (message); ...".
data_failures()
{
	awk '
		/^# ok / || /^ok / || /^not ok / { msg = ""; next }
		/^# not ok [0-9]+ / {
			if (msg != "") {
				name = $0; sub(/^# not ok [0-9]+ /, "", name)
				list = list (n++ ? "; " : "") name " (" msg ")"
			}
			msg = ""; next
		}
		msg == "" && /^# # [^ :]+\.c:[0-9]+:[^:]*:.*(stale|lost)/ {
			msg = $0; sub(/^# # [^:]*:[0-9]+:[^:]*:/, "", msg)
		}
		# chain_bench: "counted: ...; N stale words", N > 0.
		msg == "" && /^# # counted: .*; [1-9][0-9]* stale words/ {
			msg = $0; sub(/^# # counted: [^;]*; /, "", msg)
		}
		END { if (n) printf "%d: %s", n, list }' "$1"
}

# The baseline: every row the mutations' boots produce passes unmutated.
debug_filters=
for name in "${names[@]}"; do
	[ -f "$dir/$name.patch" ] || die "no mutation $name"
	git -C "$TREE" apply --check "$dir/$name.patch" ||
		die "$name does not apply to build/linux"
	! is_debug "$name" || debug_filters+=${debug_filters:+,}$(debug_filter "$name")
done
for debug in 0 1; do
	filter=
	if [ "$debug" = 1 ]; then
		[ -n "$debug_filters" ] || continue
		filter=$(tr ',' '\n' <<<"$debug_filters" | sort -u | paste -sd,)
		note "baseline: the unmodified debug series, $filter"
	else
		needed=
		for name in "${names[@]}"; do is_debug "$name" || needed=1; done
		[ -n "$needed" ] || continue
		note "baseline: the unmodified series"
	fi
	build "$debug" "$logs/baseline-$debug-build.log" ||
		die "the unmodified series does not build: see ${logs#"$ROOT"/}/baseline-$debug-build.log"
	boot "$debug" "$filter" "$logs/baseline-$debug.tsv" "baseline-$debug" all
	failed=$(failing "$logs/baseline-$debug.tsv")
	[ -z "$failed" ] || die "the unmodified series fails, so no mutation can be judged: $failed"
done

for name in "${names[@]}"; do
	patch=$dir/$name.patch
	note "$name: $(head -1 "$patch" | sed 's/^Mutation: //')"
	git -C "$TREE" apply "$patch" || die "$name does not apply to build/linux"
	rows=$logs/$name.tsv
	debug=0
	! is_debug "$name" || debug=1
	if build "$debug" "$logs/$name-build.log"; then
		boot "$debug" "$(debug_filter "$name")" "$rows" "$name"
		caught=$(failing "$rows")
		[ -n "$caught" ] || { caught="NOT CAUGHT"; missed=$((missed + 1)); }
		data=$(data_failures "$logs/$name.tap")
	else
		# A mutation that does not build tests nothing.
		caught="DOES NOT BUILD: see ${logs#"$ROOT"/}/$name-build.log"
		broken=$((broken + 1))
		data=
	fi
	revert
	printf '%s\t%s\t%s\n' "$name" "$caught" "${data:-none}" >>"$table"
done

note "rebuilding the unmodified series kernels"
for debug in 0 1; do
	[ "$debug" = 0 ] || [ -d "$(DEBUG=1 kernel_out series)" ] || continue
	out=$(DEBUG=$debug kernel_out series)
	DEBUG=$debug "$ROOT/scripts/build-kernel.sh" series >>"$logs/rebuild.log" 2>&1 &&
		"$ROOT/selftests/mkinitramfs.sh" "$out" >>"$logs/rebuild.log" 2>&1 ||
		die "the rebuild failed; see $logs/rebuild.log"
done

printf '\n%-36s %s\n' mutation "caught by (failing rows) / by data checks"
while IFS=$'\t' read -r name caught data; do
	printf '%-36s %s\n%-36s data: %s\n' "$name" "$caught" "" "$data"
done <"$table"
summary="$(wc -l <"$table") mutation(s), $missed not caught, $broken not building"
summary+=", $(awk -F'\t' '$3 != "none"' "$table" | wc -l) caught by data checks"
printf '\n%s\n' "$summary"

# The table in Markdown; Documentation/mutations.md when all of them ran.
{
	echo "# Mutations: what breaks the series, and which tests catch it"
	echo
	echo "Written by \`make mutate\` (scripts/mutate.sh) on $(date -u +%Y-%m-%d), on the"
	echo "series of \`patches/\` as exported at project commit $project (build/linux"
	echo "$(git -C "$TREE" rev-parse --short HEAD)), after a baseline of the unmodified"
	echo "series in which every row passed: $summary."
	if [ -n "${MUTATE_FILTER:-}" ]; then
		echo "The series booted with \`MUTATE_FILTER=$MUTATE_FILTER\`: those kselftests"
		echo "alone, without KUnit, so a mutation that only other tests catch shows"
		echo "as not caught here."
	else
		echo "The series booted in stages, each only if no row had failed before:"
		echo "KUnit with \`${stages[0]}\`, then the other kselftests but"
		echo "\`${stages[2]}\`, then \`${stages[2]}\`, the last two without KUnit;"
		echo "a mutation is caught by the rows of the first stage that had one."
	fi
	echo "A mutation is caught by the result rows that fail with it applied"
	echo "(kernel, row; see [testing.md](testing.md) for the rows). The data"
	echo "column lists the failing kselftests that printed a data-check message,"
	echo "stale or lost words, under the engine's cache emulation; the others"
	echo "failed on counts or on the kernel's own checks."
	echo
	echo "| mutation | what it breaks | caught by | caught by data checks |"
	echo "|---|---|---|---|"
	while IFS=$'\t' read -r name caught data; do
		what=$(head -1 "$dir/$name.patch" | sed 's/^Mutation: //; s/|/\\|/g')
		echo "| \`$name\` | $what | ${caught//|/\\|} | ${data//|/\\|} |"
	done <"$table"
} >"$logs/table.md"
# A filtered run does not replace the table of a full one.
doc=$ROOT/Documentation/mutations.md
if [ ${#names[@]} -eq ${#all[@]} ] &&
	{ [ -z "${MUTATE_FILTER:-}" ] || [ ! -f "$doc" ] || grep -q MUTATE_FILTER= "$doc"; }; then
	cp "$logs/table.md" "$doc"
	note "table: ${doc#"$ROOT"/}"
fi
[ "$missed" -eq 0 ] && [ "$broken" -eq 0 ]
