#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series workflow between patches/ and the kernel tree build/linux.
#
#   series.sh tree            create build/linux: the base, then patches/
#   series.sh export          regenerate patches/ from build/linux
#   series.sh check-exported  fail if build/linux holds work patches/ lacks
#
# build/linux is a git repository: the tag "base" is the pristine base and
# the branch "series" carries one commit per patch. The series is posted
# as units (scripts/series.conf), each ending at a branch: base..fixes,
# fixes..rfc and rfc..series, written to patches/fixes/, patches/rfc/ and
# patches/tests/. The description of a unit's branch (git branch
# --edit-description) is its cover letter's subject and text.
# rebase.updateRefs keeps the unit branches on the series as it is
# rebased.
#
# The base is Debian's linux-source tarball (scripts/series.conf), or the
# git tree named by KERNEL_SRC at KERNEL_REF (default HEAD).

. "$(dirname "$0")/common.sh"

BRANCH=series
SYNCED=$TREE/.git/dmabuf-exported
APPLYING=$TREE/.git/dmabuf-applying

git_tree()
{
	git -C "$TREE" "$@"
}

# git am needs a committer, and git notes an author too (the patches keep
# their own authors); a fresh machine may have no identity at all.
have_committer()
{
	git_tree config user.email >/dev/null ||
		export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-series builder} \
		       GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-builder@localhost} \
		       GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-series builder} \
		       GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-builder@localhost}
}

# Where unit $1 starts: the branch of the unit before it, or the base.
unit_start()
{
	local i

	for i in "${!UNITS[@]}"; do
		[ "${UNITS[i]}" = "$1" ] || continue
		if [ "$i" -eq 0 ]; then echo base; else echo "${UNIT_BRANCHES[i - 1]}"; fi
		return
	done
	die "unknown unit $1"
}

dir_sum()
{
	(cd "$1" && find . -name '*.patch' | sort | xargs -r sha256sum) |
		sha256sum | cut -d' ' -f1
}

base_from_tarball()
{
	local dir=$1 tarball block

	tarball=$("$ROOT/scripts/fetch-kernel.sh")
	note "unpacking $(basename "$tarball")"
	tar -xJf "$tarball" -C "$dir" --strip-components=1

	# Debian's tarball ends .gitignore with a rule that ignores every
	# top-level path; with it, new files would never reach git add.
	block=$(grep -n '^# Debian packaging: ignore everything at the top level' \
		"$dir/.gitignore" | cut -d: -f1 || true)
	[[ "$block" =~ ^[0-9]+$ ]] ||
		die "the Debian .gitignore block of $BASE_PACKAGE is not as expected; check scripts/series.sh"
	head -n $((block - 3)) "$dir/.gitignore" >"$dir/.gitignore.new"
	mv "$dir/.gitignore.new" "$dir/.gitignore"

	git -C "$dir" init -q -b "$BRANCH"
	# -f: the kernel's .gitignore ignores its own dotfiles (.gitignore,
	# .mailmap, .kunitconfig); the base is the whole tarball.
	git -C "$dir" add -A -f
	GIT_AUTHOR_NAME="Debian kernel source" GIT_AUTHOR_EMAIL=linux-source@localhost \
	GIT_COMMITTER_NAME="Debian kernel source" GIT_COMMITTER_EMAIL=linux-source@localhost \
	GIT_AUTHOR_DATE=$BASE_COMMIT_DATE GIT_COMMITTER_DATE=$BASE_COMMIT_DATE \
		git -C "$dir" commit -q -F - <<-MSG
		Linux $BASE_VERSION ($BASE_PACKAGE $BASE_PACKAGE_VERSION)

		Pristine source of Debian's $BASE_PACKAGE package, version
		$BASE_PACKAGE_VERSION, from $BASE_SUITE.

		The block that Debian's packaging appends to .gitignore, which
		ignores every top-level path, is dropped so that new files can be
		added to this tree.
		MSG
	git -C "$dir" ls-files --error-unmatch Makefile .gitignore drivers/dma-buf/.kunitconfig \
		>/dev/null ||
		die "the base commit misses tracked files; check the .gitignore edit"
}

base_from_git()
{
	local dir=$1 ref=${KERNEL_REF:-HEAD} commit

	commit=$(git -C "$KERNEL_SRC" rev-parse --verify -q "$ref^{commit}") ||
		die "KERNEL_SRC=$KERNEL_SRC is not a git tree with $ref"
	note "cloning $KERNEL_SRC at $ref ($commit)"
	git clone -q --shared --no-checkout "$KERNEL_SRC" "$dir"
	git -C "$dir" checkout -q -B "$BRANCH" "$commit"
}

# The subject and text of cover letter $1, as a branch description.
cover_subject_and_text()
{
	local cover=$1

	if [ ! -f "$cover" ]; then
		printf 'DMA-BUF CPU-cache ownership: %s\n' "$(basename "$(dirname "$cover")")"
		return
	fi
	# Subject after its "[PREFIX 0/N] ", then the text up to the "---".
	sed -n 's/^Subject: \[[^]]*\] //p' "$cover"
	echo
	awk 'body && /^---$/ { exit } body { print } /^$/ { body = 1 }' "$cover"
}

# The text below a patch's "---" that format-patch --notes put there: the
# "Notes:" block, unindented. git am drops it; keep it as the commit's
# note so that export writes it again.
restore_notes()
{
	local text

	text=$(awk '
		!body && /^---$/ { body = 1; next }
		body == 1 && /^$/ { next }
		body == 1 { if ($0 == "Notes:") { body = 2; next } exit }
		body == 2 && /^    / { print substr($0, 5); next }
		body == 2 && /^$/ { print ""; next }
		body == 2 { exit }' "$1")
	[ -z "$text" ] || git_tree notes add -f -m "$text" HEAD
}

# Make each unit's branch one that b4 prep manages, with its cover letter
# in the branch description (where export reads it) and its bookkeeping in
# the git configuration, so that "b4 prep" and "b4 send" work on it once
# it is checked out. b4 wants the base on a branch of its own, and each
# unit's base is the branch of the unit before it.
b4_prep_tracking()
{
	local i branch base prefixes

	git_tree branch -f linux-base base
	git_tree config rebase.updateRefs true
	for i in "${!UNITS[@]}"; do
		branch=${UNIT_BRANCHES[i]}
		base=linux-base
		[ "$i" -eq 0 ] || base=${UNIT_BRANCHES[i - 1]}
		prefixes='[]'
		case "${UNIT_PREFIXES[i]}" in RFC\ *) prefixes='["RFC"]' ;; esac
		git_tree config "branch.$branch.b4-prep-cover-strategy" branch-description
		git_tree config "branch.$branch.b4-tracking" \
			"{\"series\": {\"revision\": ${UNIT_REVISIONS[i]}, \"change-id\": \"${UNIT_CHANGE_IDS[i]}\", \"base-branch\": \"$base\", \"prefixes\": $prefixes}}"
	done
}

# Apply patches/ on the current commit. If a patch does not apply, fail
# naming it, after putting build/linux back at commit $1, or, for a new
# tree ($1 = base), leaving it partial. Until then build/linux is marked
# as partial ($APPLYING): export refuses it, and the next make tree makes
# it again.
apply_series()
{
	local restore=$1 i branch out patch where
	local -a old_desc old_head

	touch "$APPLYING"
	have_committer
	git_tree config notes.rewriteRef refs/notes/commits
	for i in "${!UNITS[@]}"; do
		branch=${UNIT_BRANCHES[i]}
		old_desc[i]=$(git_tree config "branch.$branch.description" || true)
		old_head[i]=$(git_tree rev-parse -q --verify "refs/heads/$branch" || true)
		git_tree config "branch.$branch.description" \
			"$(cover_subject_and_text "$PATCHES/${UNITS[i]}/0000-cover-letter.patch")"
		for patch in $(unit_patches "${UNITS[i]}"); do
			if out=$(git_tree am -q "$patch" 2>&1); then
				restore_notes "$patch"
				continue
			fi
			out=$(echo "$out" | grep -vE '^(When you have|If you prefer|To restore)')
			git_tree am --abort || true
			echo "$out" >&2
			where="the base"
			[ "$i" -eq 0 ] || where="the base and the units before it (${UNITS[*]:0:i})"
			if [ "$restore" = base ]; then
				# A new tree: it stays marked partial, and the next
				# make tree starts it again.
				die "patches/${patch#"$PATCHES"/} does not apply on $where." \
				    "Fix patches/ and run 'make tree' again."
			fi
			git_tree reset -q --hard "$restore"
			# Put back the units' branches and cover letters as they were.
			for i in "${!old_head[@]}"; do
				branch=${UNIT_BRANCHES[i]}
				if [ -n "${old_desc[i]}" ]; then
					git_tree config "branch.$branch.description" "${old_desc[i]}"
				else
					git_tree config --unset "branch.$branch.description" || true
				fi
				[ "$branch" != "$BRANCH" ] || continue
				if [ -n "${old_head[i]}" ]; then
					git_tree branch -f "$branch" "${old_head[i]}"
				else
					git_tree branch -q -D "$branch" 2>/dev/null || true
				fi
			done
			rm -f "$APPLYING"
			# A tree from before patches/ had units cannot be exported.
			export_sum >"$SYNCED.new" 2>/dev/null && mv "$SYNCED.new" "$SYNCED" ||
				rm -f "$SYNCED" "$SYNCED.new"
			die "patches/${patch#"$PATCHES"/} does not apply on $where; build/linux is left as it was." \
			    "Fix patches/, or fix the series in build/linux and run 'make export', which rewrites patches/."
		done
		[ "$branch" = "$BRANCH" ] || git_tree branch -f "$branch" HEAD
	done
	b4_prep_tracking
	export_sum >"$SYNCED"
	rm -f "$APPLYING"
	[ "$(cat "$SYNCED")" = "$(dir_sum "$PATCHES")" ] ||
		note "warning: exporting build/linux does not reproduce patches/ byte for byte" \
		     "(another git version?); 'make export' would rewrite it"
}

# Write the series into directory $1 exactly as export would: unit i in
# $1/UNIT, the commits from unit_start to its branch.
export_to()
(
	local dir=$1 i unit branch start

	# From here on only the options given shape the output, not anyone's
	# git configuration.
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	for i in "${!UNITS[@]}"; do
		unit=${UNITS[i]}
		branch=${UNIT_BRANCHES[i]}
		start=$(unit_start "$unit")
		git_tree rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
			die "build/linux has no branch $branch, where unit $unit ends: create it at the" \
			    "unit's last commit (git branch $branch COMMIT), or, if build/linux was made" \
			    "before patches/ had units and holds nothing unexported, remove it and run 'make tree'"
		git_tree merge-base --is-ancestor "$start" "$branch" &&
			git_tree merge-base --is-ancestor "$branch" "$BRANCH" ||
			die "build/linux's branch $branch is not between $start and $BRANCH;" \
			    "the units must stack (rebase with --update-refs keeps them so)"
		mkdir -p "$dir/$unit"
		export_unit "$dir/$unit" "$start" "$branch" "${UNIT_PREFIXES[i]}"
	done
)

# Write the commits $2..$3 and their cover letter into directory $1, with
# subject prefix $4.
export_unit()
{
	local dir=$1 start=$2 branch=$3 prefix=$4 count date ident desc

	count=$(git_tree rev-list --count "$start..$branch")
	date=$(git_tree log -1 --format=%aD "$branch")
	# The cover letter is the last author's; with no patches yet, it keeps
	# the author it has.
	if [ "$count" -gt 0 ]; then
		ident=$(git_tree log -1 --format='%an <%ae>' "$branch")
	else
		ident=$(sed -n '2s/^From: //p' "$PATCHES/${dir##*/}/0000-cover-letter.patch" \
			2>/dev/null || true)
		[ -n "$ident" ] ||
			ident=$(git_tree var GIT_AUTHOR_IDENT | sed 's/ [0-9]* [-+][0-9]*$//')
	fi
	desc=$(git_tree config "branch.$branch.description" || true)
	[ -n "$desc" ] ||
		die "build/linux's branch $branch has no cover letter text;" \
		    "run 'git branch --edit-description $branch'"

	git_tree format-patch -q --zero-commit --no-signature --numbered \
		--no-thread --no-to --no-cc --no-signoff --no-add-header \
		--notes=refs/notes/commits \
		--abbrev=12 --subject-prefix="$prefix" -o "$dir" "$start..$branch"
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: $ident"
		echo "Date: $date"
		echo "Subject: [$prefix 0/$count] $(echo "$desc" | head -n 1)"
		echo
		echo "$desc" | tail -n +2 | sed '/./,$!d'
		echo "---"
		if [ "$count" -gt 0 ]; then
			git_tree shortlog "$start..$branch"
			git_tree diff --stat=72 --summary "$start" "$branch"
		else
			echo "(no patches yet)"
		fi
	} >"$dir/0000-cover-letter.patch"
}

# Refuse to touch build/linux in the middle of a rebase, am or merge, or
# on another branch: its work there is not what export sees.
require_idle()
{
	local git_dir op

	git_dir=$(git_tree rev-parse --absolute-git-dir)
	for op in rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD; do
		[ ! -e "$git_dir/$op" ] ||
			die "build/linux has an operation in progress ($op); finish or abort it first"
	done
	[ "$(git_tree symbolic-ref -q HEAD || true)" = "refs/heads/$BRANCH" ] ||
		die "build/linux is not on branch $BRANCH; check out $BRANCH first"
}

# Print what build/linux holds that patches/ lacks; empty when in sync.
unexported()
{
	local tmp

	git_tree status --porcelain | sed 's/^/uncommitted in build\/linux: /'
	[ "$(git_tree symbolic-ref -q --short HEAD || true)" = "$BRANCH" ] ||
		echo "build/linux is not on branch $BRANCH"
	tmp=$(mktemp -d)
	export_to "$tmp"
	diff -rq "$tmp" "$PATCHES" 2>&1 |
		sed -e "s|$tmp|build/linux|g" -e "s|$PATCHES|patches|g" || true
	rm -rf "$tmp"
}

cmd_tree()
{
	local tmp restore out

	# A "make tree" that died while applying (killed, or a git error)
	# left a partial series: start again.
	if [ -e "$APPLYING" ]; then
		note "build/linux is a partial tree from an interrupted 'make tree'; making it again"
		rm -rf "$TREE"
	fi
	if [ -d "$TREE/.git" ]; then
		require_idle
		out=$(unexported)
		# In sync: only b4's bookkeeping may be older than series.conf.
		[ -n "$out" ] || { b4_prep_tracking; exit 0; }
		[ -z "$(git_tree status --porcelain)" ] && [ -f "$SYNCED" ] &&
			[ "$(cat "$SYNCED")" = "$(export_sum)" ] ||
			die "build/linux holds work that patches/ does not:" "$out" \
			    "Run 'make export' to keep it, or remove build/linux to start again from patches/."
		note "patches/ changed; reapplying the series on the base"
		restore=$(git_tree rev-parse HEAD)
		touch "$APPLYING"
		git_tree reset -q --hard base
		apply_series "$restore"
		exit 0
	fi

	mkdir -p "$BUILD"
	tmp=$TREE.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	if [ -n "${KERNEL_SRC:-}" ]; then
		base_from_git "$tmp"
	else
		base_from_tarball "$tmp"
	fi
	git -C "$tmp" tag -f base >/dev/null
	# Unpacked files keep the tarball's old dates, so objects built from
	# an earlier tree could look newer than them: build-kernel.sh starts
	# afresh for a tree with a new id.
	echo "$(git -C "$tmp" rev-parse base)-$(date +%s%N)" >"$tmp/.git/dmabuf-tree-id"
	# Partial from here until apply_series is done.
	touch "$tmp/.git/${APPLYING##*/}"
	rm -rf "$TREE"
	mv -T "$tmp" "$TREE"
	apply_series base
	note "build/linux: base $(git_tree describe --always base), $(git_tree rev-list --count base..$BRANCH) patch(es)"
}

export_sum()
{
	local tmp sum

	tmp=$(mktemp -d)
	export_to "$tmp" || { rm -rf "$tmp"; return 1; }
	sum=$(dir_sum "$tmp")
	rm -rf "$tmp"
	echo "$sum"
}

# A make tree that did not finish leaves a partial series, which export
# would write over patches/.
require_whole()
{
	[ ! -e "$APPLYING" ] ||
		die "build/linux is a partial tree from a 'make tree' that did not finish;" \
		    "run 'make tree' to make it again from patches/"
}

cmd_export()
{
	[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
	require_whole
	require_idle
	[ -z "$(git_tree status --porcelain)" ] ||
		die "build/linux has uncommitted changes; commit them first"
	rm -rf "$PATCHES.tmp"
	mkdir -p "$PATCHES.tmp"
	export_to "$PATCHES.tmp"
	rm -rf "$PATCHES"
	mv "$PATCHES.tmp" "$PATCHES"
	dir_sum "$PATCHES" >"$SYNCED"
	note "exported $(unit_patches | wc -l) patch(es) to patches/: $(for unit in "${UNITS[@]}"; do
		printf '%s %s, ' "$unit" "$(unit_patches "$unit" | wc -l)"; done | sed 's/, $//')"
}

cmd_check_exported()
{
	local out

	[ -d "$TREE/.git" ] || exit 0
	require_whole
	out=$(unexported)
	[ -z "$out" ] && exit 0
	echo "$out" >&2
	die "build/linux holds work that patches/ does not; run 'make export' and commit patches/"
}

case "${1:-}" in
tree) cmd_tree ;;
export) cmd_export ;;
check-exported) cmd_check_exported ;;
*) die "usage: $PROG tree|export|check-exported" ;;
esac
