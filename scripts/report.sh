#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the summary table of a results file written by test.sh, and a last
# line "N passed, N failed, N skipped". Exits non-zero if anything failed.
#
#   report.sh RESULTS_TSV

. "$(dirname "$0")/common.sh"

results=${1:?usage: $PROG RESULTS_TSV}

awk -F'\t' '
	{
		status = $4 > 0 ? "FAIL" : $3 > 0 ? "pass" : "skip"
		printf "%-6s %-8s %-56s %5d %5d %5d  %s\n", status, $1, $2, $3, $4, $5, $6
		passed += $3; failed += $4; skipped += $5
	}
	BEGIN {
		printf "\n%-6s %-8s %-56s %5s %5s %5s  %s\n", "", "kernel", "suite", "pass", "fail", "skip", "note"
	}
	END {
		printf "\n%d passed, %d failed, %d skipped\n", passed, failed, skipped
		exit failed > 0
	}' "$results"
