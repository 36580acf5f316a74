#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of patches/, printed as result rows (kernel, check,
# passed, failed, skipped, note):
#  - checkpatch.pl --strict on every patch, less the message types listed
#    with their reasons in scripts/checkpatch.ignore;
#  - the series applies with git am on the pristine base;
#  - Debian's b4 accepts the series from one threaded local mbox;
#  - kernel-doc finds nothing to report in the files the series touches.
# Details go to build/logs/static/.

. "$(dirname "$0")/common.sh"

logs=$BUILD/logs/static
am_tree=$BUILD/am-check
rm -rf "$logs"
mkdir -p "$logs"

mapfile -t patches < <(find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)

row()
{
	printf 'static\t%s\t%s\t%s\t%s\t%s\n' "$@"
}

# Run "$@" with its output in $logs/$name.log; one row for the outcome.
# The checks run as "if" conditions, where set -e does not apply: each
# returns on failure by itself.
check()
{
	local name=$1 log=$logs/${1// /-}.log

	shift
	if "$@" >"$log" 2>&1; then
		row "$name" 1 0 0 ""
	else
		row "$name" 0 1 0 "see ${log#"$ROOT"/}: $(grep -v '^\s*$' "$log" | tail -n 1)"
	fi
}

checkpatch()
{
	local ignore

	ignore=$(sed -e 's/#.*//' -e '/^\s*$/d' "$ROOT/scripts/checkpatch.ignore" |
		awk '{ print $1 }' | paste -sd,)
	"$TREE/scripts/checkpatch.pl" --strict --no-summary --show-types \
		${ignore:+--ignore "$ignore"} "$1"
}

git_am_on_base()
{
	if [ ! -e "$am_tree/.git" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$am_tree" base || return 1
	fi
	git -C "$am_tree" am --abort >/dev/null 2>&1
	git -C "$am_tree" checkout -q -f --detach base || return 1
	git -C "$am_tree" clean -q -fd || return 1
	git -C "$am_tree" -c user.name=check -c user.email=check@localhost am "${patches[@]}"
}

# Thread the series as git send-email would, and let b4 pick it up.
b4_am()
{
	local mbox=$logs/series.mbox out=$logs/b4 n=0 patch applied folded

	# b4 0.12 crashes on a From: header folded over two lines.
	folded=$(awk '/^From: / { from = 1; next } from && /^[ \t]/ { print FILENAME } { from = 0 }' \
		"$PATCHES/0000-cover-letter.patch" "${patches[@]}")
	if [ -n "$folded" ]; then
		echo "folded From: header (author name and address too long) in:" $folded
		return 1
	fi

	: >"$mbox"
	for patch in "$PATCHES/0000-cover-letter.patch" "${patches[@]}"; do
		awk -v n=$n '
			{ print }
			/^Date: / && !done {
				printf "Message-ID: <series-%d@dmabuf-ownership.invalid>\n", n
				if (n) {
					print "In-Reply-To: <series-0@dmabuf-ownership.invalid>"
					print "References: <series-0@dmabuf-ownership.invalid>"
				}
				done = 1
			}' "$patch" >>"$mbox"
		echo >>"$mbox"
		n=$((n + 1))
	done
	rm -rf "$out"
	mkdir -p "$out"
	b4 --no-interactive am -C -m "$mbox" -o "$out" -n series || return 1
	applied=$(grep -c '^Subject: ' "$out/series.mbx") || return 1
	[ "$applied" -eq ${#patches[@]} ] ||
		{ echo "b4 kept $applied of ${#patches[@]} patches"; return 1; }
}

kernel_doc()
{
	local files out

	mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=AM base series -- '*.c' '*.h')
	[ ${#files[@]} -eq 0 ] && return 0
	out=$(cd "$TREE" && scripts/kernel-doc -none -Wall "${files[@]}" 2>&1)
	echo "$out"
	[ -z "$out" ]
}

for patch in "${patches[@]}"; do
	check "checkpatch $(basename "$patch" .patch)" checkpatch "$patch"
done

if [ ${#patches[@]} -eq 0 ]; then
	row "git am on base" 0 0 1 "no patches yet"
	row "b4 am" 0 0 1 "no patches yet"
else
	check "git am on base" git_am_on_base
	check "b4 am" b4_am
fi
check "kernel-doc" kernel_doc
