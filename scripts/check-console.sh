#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fail a boot whose console shows a kernel problem, even if every test
# passed: WARNING, BUG, Oops, panic, lockdep, KASAN, UBSAN, kmemleak, hung
# tasks and RCU stalls.
#
#   check-console.sh KERNEL CONSOLE_LOG
#
# Prints one result row (kernel, check, passed, failed, skipped, note) and
# the offending lines on stderr.

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: $PROG KERNEL CONSOLE_LOG}
log=${2:?usage: $PROG KERNEL CONSOLE_LOG}

patterns=(
	'WARNING:'			# WARN(), lockdep, RCU lockdep
	'BUG:'				# BUG(), KASAN, sleeping in atomic
	'kernel BUG at'
	'Internal error: Oops'
	'Unable to handle kernel'
	'Kernel panic'
	'UBSAN:'
	'kmemleak: [0-9]+ new suspected memory leaks'
	'INFO: task .* blocked for more than'
	'rcu: INFO: .* detected stalls'
	'DMA-API: .* bug'
	'DMA-API: [1-9][0-9]* errors in this boot'	# init.sh's count
	'DMA-API: .*(disabled|disabling)'	# debugging gave up
	'kmemleak: .*(disabled|Cannot allocate)'
)

if [ ! -s "$log" ]; then
	printf '%s\tconsole clean\t0\t1\t0\tno console log %s\n' "$kernel" "${log#"$ROOT"/}"
	exit 0
fi
# -a: one stray NUL byte must not turn the log into a "binary file".
found=$(grep -anE "$(IFS='|'; echo "${patterns[*]}")" "$log" || true)
if [ -z "$found" ]; then
	printf '%s\tconsole clean\t1\t0\t0\t\n' "$kernel"
	exit 0
fi
head -n 20 <<<"$found" >&2
printf '%s\tconsole clean\t0\t1\t0\t%s: %s\n' "$kernel" "${log#"$ROOT"/}" \
	"$(head -n 1 <<<"$found" | cut -c1-100)"
