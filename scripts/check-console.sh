#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fail a boot whose console shows a kernel problem, even if every test
# passed: WARNING, BUG, Oops, panic, lockdep, KASAN, UBSAN, kmemleak, hung
# tasks and RCU stalls.
#
#   check-console.sh KERNEL CONSOLE_LOG [CHECK]
#
# Prints one result row (kernel, check, passed, failed, skipped, note) and
# the offending lines on stderr; CHECK names the row (default "console
# clean").

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: $PROG KERNEL CONSOLE_LOG [CHECK]}
log=${2:?usage: $PROG KERNEL CONSOLE_LOG [CHECK]}
check=${3:-console clean}

patterns=(
	'WARNING:'			# WARN(), lockdep, RCU lockdep
	'BUG:'				# BUG(), KASAN, sleeping in atomic
	'kernel BUG at'
	'Internal error: Oops'
	'Unable to handle kernel'
	'Kernel panic'
	'UBSAN:'
	'INFO: task .* blocked for more than'
	'rcu: INFO: .* detected stalls'
	'DMA-API: .* bug'
	'DMA-API: [1-9][0-9]* errors in this boot'	# init.sh's count
	'DMA-API: .*(disabled|disabling)'	# debugging gave up
	'kmemleak: .*(disabled|Cannot allocate)'
)

# Two leaks of v7.3's own test code, which kmemleak reports in every
# debug boot: KUnit's kunit_attach_mm() (lib/kunit/user_alloc.c) never
# drops the mm it gives a test that maps user memory, as the series'
# dma-buf-device-chain suite does, and test_unwrap_merge_order
# (st-dma-fence-unwrap.c) never puts two of its fences. The leak records
# that init.sh logs must all come from them; any other leak fails the
# boot.
known_leak='kunit_attach_mm|test_unwrap_merge_order'

if [ ! -s "$log" ]; then
	printf '%s\t%s\t0\t1\t0\tno console log %s\n' "$kernel" "$check" "${log#"$ROOT"/}"
	exit 0
fi
leaks=$({ grep -aoE 'kmemleak: [0-9]+ new suspected memory leaks' "$log" || true; } |
	awk '{ n += $2 } END { print n + 0 }')
others=$(awk -v known="$known_leak" '
	/kmemleak report: unreferenced object/ { if (open && !ok) bad++; open = 1; ok = 0; next }
	/kmemleak report:/ && $0 ~ known { ok = 1 }
	END { if (open && !ok) bad++; print bad + 0 }' "$log")
records=$(grep -ac 'kmemleak report: unreferenced object' "$log" || true)
# -a: one stray NUL byte must not turn the log into a "binary file".
found=$(grep -anE "$(IFS='|'; echo "${patterns[*]}")" "$log" || true)
if [ "$leaks" -gt 0 ] && { [ "$others" -gt 0 ] || [ "$records" -eq 0 ]; }; then
	found+=$'\n'"kmemleak: $leaks suspected leaks, $others of them not from v7.3 test code ($known_leak)"
fi
found=$(sed '/^$/d' <<<"$found")
if [ -z "$found" ]; then
	note=
	[ "$leaks" -eq 0 ] || note="kmemleak: $records objects leaked by v7.3 test code ($known_leak), none else"
	printf '%s\t%s\t1\t0\t0\t%s\n' "$kernel" "$check" "$note"
	exit 0
fi
head -n 20 <<<"$found" >&2
printf '%s\t%s\t0\t1\t0\t%s: %s\n' "$kernel" "$check" "${log#"$ROOT"/}" \
	"$(head -n 1 <<<"$found" | cut -c1-100)"
