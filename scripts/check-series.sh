#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of patches/, printed as result rows (kernel, check,
# passed, failed, skipped, note):
#  - checkpatch.pl --strict on every patch, less the message types listed
#    with their reasons in scripts/checkpatch.ignore;
#  - the series applies with git am on the pristine base (build/am-check);
#  - Debian's b4 accepts the series from one threaded local mbox;
#  - kernel-doc: "kernel-doc -none" is silent on the files the series
#    touches, and "-Wall" finds nothing there that the base did not have;
#  - a MAINTAINERS entry other than THE REST covers every file the series
#    adds (checkpatch only asks, for every new file).
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

# Run "$@" with its output in $logs/$name.log; one row for the outcome,
# whose note is the first error or warning in the log. The checks run as
# "if" conditions, where set -e does not apply: each returns on failure by
# itself.
check()
{
	local name=$1 log=$logs/${1// /-}.log first

	shift
	if "$@" >"$log" 2>&1; then
		row "$name" 1 0 0 ""
		return 0
	fi
	first=$(grep -m1 -E '^(ERROR|WARNING|CHECK|error|fatal|warning|Warning)' "$log" ||
		grep -v '^\s*$' "$log" | tail -n 1 || true)
	row "$name" 0 1 0 "see ${log#"$ROOT"/}: ${first:0:100}"
	return 1
}

# From inside the kernel tree, so that checkpatch checks commit ids
# against it and keeps its caches there; with Debian's python3 first in
# PATH, whose ply and git modules its SPDX check imports.
checkpatch()
{
	local ignore

	ignore=$(sed -e 's/#.*//' -e '/^\s*$/d' "$ROOT/scripts/checkpatch.ignore" |
		awk '{ print $1 }' | paste -sd,)
	(cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict \
		--no-summary --show-types ${ignore:+--ignore "$ignore"} "$1")
}

git_am_on_base()
{
	worktree_at "$am_tree" base || return 1
	git -C "$am_tree" am --abort >/dev/null 2>&1
	git -C "$am_tree" checkout -q -f --detach base || return 1
	git -C "$am_tree" clean -q -fd || return 1
	git -C "$am_tree" -c user.name=check -c user.email=check@localhost am "${patches[@]}"
}

# Thread the series as git send-email would, and let b4 pick it up.
b4_am()
{
	local mbox=$logs/series.mbox out=$logs/b4 n=0 patch applied folded

	# b4 0.12 crashes on any header folded over two lines: an author name
	# and address, or a subject, too long for one line.
	folded=$(awk 'FNR == 1 { head = 1 } /^$/ { head = 0 }
		head && /^[ \t]/ { print FILENAME ": folded " name " header" }
		head && /^[A-Za-z-]+:/ { name = $1 }' \
		"$PATCHES/0000-cover-letter.patch" "${patches[@]}")
	if [ -n "$folded" ]; then
		echo "error: b4 0.12 cannot read folded headers; shorten them:"
		echo "$folded"
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
		{ echo "error: b4 kept $applied of ${#patches[@]} patches"; return 1; }
}

# kernel-doc -Wall warnings of $2 at revision $1 of the am-check tree,
# without file names and line numbers, sorted.
doc_warnings()
{
	local tmp=$logs/kernel-doc/$1/$2

	mkdir -p "$(dirname "$tmp")"
	git -C "$am_tree" show "$1:$2" >"$tmp" 2>/dev/null || return 0
	"$am_tree/scripts/kernel-doc" -none -Wall "$tmp" 2>&1 |
		sed -E 's/^(Warning|warning|error): *[^ ]+:[0-9]+:? *//' | sort
}

kernel_doc()
{
	local files file out new=0

	mapfile -t files < <(git -C "$am_tree" diff --name-only --diff-filter=AM base HEAD -- '*.c' '*.h')
	[ ${#files[@]} -gt 0 ] || return 0
	out=$(cd "$am_tree" && scripts/kernel-doc -none "${files[@]}" 2>&1) || return 1
	echo "$out"
	[ -z "$out" ] || return 1
	for file in "${files[@]}"; do
		out=$(comm -13 <(doc_warnings base "$file") <(doc_warnings HEAD "$file"))
		[ -z "$out" ] && continue
		sed "s|^|warning: $file: |" <<<"$out"
		new=1
	done
	[ "$new" -eq 0 ]
}

maintainers_cover()
{
	local files file sections missing=0

	mapfile -t files < <(git -C "$am_tree" diff --name-only --diff-filter=A base HEAD)
	for file in "${files[@]}"; do
		sections=$(cd "$am_tree" &&
			scripts/get_maintainer.pl --no-git --no-git-fallback \
				--no-keywords --sections -f "$file" |
			grep -Ev '^([A-Z]:|$)' | grep -vx 'THE REST' | paste -sd,) || true
		if [ -z "$sections" ]; then
			echo "error: no MAINTAINERS entry covers $file"
			missing=1
		else
			echo "$file: $sections"
		fi
	done
	[ "$missing" -eq 0 ]
}

for patch in "${patches[@]}"; do
	check "checkpatch $(basename "$patch" .patch)" checkpatch "$patch" || true
done

if [ ${#patches[@]} -eq 0 ]; then
	for name in "git am on base" "b4 am" "kernel-doc" "MAINTAINERS"; do
		row "$name" 0 0 1 "no patches yet"
	done
	exit 0
fi
check "b4 am" b4_am || true
if check "git am on base" git_am_on_base; then
	check "kernel-doc" kernel_doc || true
	check "MAINTAINERS" maintainers_cover || true
else
	row "kernel-doc" 0 0 1 "the series does not apply"
	row "MAINTAINERS" 0 0 1 "the series does not apply"
fi
