#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of patches/, printed as result rows (kernel, check,
# passed, failed, skipped, note). patches/ holds the units of
# scripts/series.conf (fixes, rfc, tests), each a series of its own:
#  - checkpatch.pl --strict on every patch, less the message types listed
#    with their reasons in scripts/checkpatch.ignore;
#  - the units apply in order with git am on the pristine base
#    (build/am-check), and each fix applies on the base alone;
#  - every fix has Fixes: tags, each listed with its subject in
#    scripts/fixes.verified, and says why in its notes when it is not
#    Cc: stable; the other units have none;
#  - Debian's b4 accepts each unit from one threaded local mbox;
#  - kernel-doc: "kernel-doc -none" is silent on the files the series
#    touches, and "-Wall" finds nothing there that the base did not have;
#  - a MAINTAINERS entry other than THE REST covers every file the series
#    adds (checkpatch only asks, for every new file);
#  - the touched .rst files: docutils, with the kernel's Sphinx-only
#    directives and roles stubbed and its kernel-doc directives expanded,
#    finds nothing the base did not (unresolved references included), and
#    every DOC section or identifier a kernel-doc directive names exists;
#  - recipients: get_maintainer.pl plus scripts/series.recipients reach
#    the lists and maintainers reviewers expect for what each patch
#    touches; the lists are left in build/logs/static/recipients/;
#  - sparse (C=2) on the C files the series touches, built for arm64 in
#    build/static-sparse at the base and with the series, reports nothing
#    new in them or in the headers they include;
#  - with SEND=1 only: every patch and the cover letter carries the
#    sender's own Signed-off-by, and none the placeholder identity.
# Details go to build/logs/static/.

. "$(dirname "$0")/common.sh"

logs=$BUILD/logs/static
am_tree=$BUILD/am-check
rm -rf "$logs"
mkdir -p "$logs"

# The first unit holds the fixes to the base (scripts/series.conf).
fixes_unit=${UNITS[0]}

# Every patch, unit after unit; and the cover letters.
patches=()
covers=()
for unit in "${UNITS[@]}"; do
	mapfile -t -O ${#patches[@]} patches < <(unit_patches "$unit")
	[ ! -f "$PATCHES/$unit/0000-cover-letter.patch" ] ||
		covers+=("$PATCHES/$unit/0000-cover-letter.patch")
done

# A patch's name in rows and messages: UNIT/NNNN-subject.
patch_name()
{
	local name=${1#"$PATCHES"/}

	echo "${name%.patch}"
}

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
	mkdir -p "$(dirname "$log")"
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

# The fixes go to stable trees one by one: each must apply on the base
# without the others. (check-each-patch builds them in order.)
fixes_apply_alone()
{
	local patch index=$logs/base.index bad=0

	GIT_INDEX_FILE=$index git -C "$am_tree" read-tree base || return 1
	for patch in $(unit_patches "$fixes_unit"); do
		GIT_INDEX_FILE=$index git -C "$am_tree" apply --cached --check "$patch" && continue
		echo "error: $(patch_name "$patch") does not apply on the base alone"
		bad=1
	done
	rm -f "$index"
	[ "$bad" -eq 0 ]
}

# A patch's trailers of kind $2 (Fixes, Cc), above its "---".
trailers()
{
	awk -v kind="$2" '/^---$/ { exit } index($0, kind ": ") == 1 { print substr($0, length(kind) + 3) }' "$1"
}

# A patch's notes: what format-patch --notes put below its "---".
patch_notes()
{
	awk 'body && /^Notes:$/ { notes = 1; next }
		notes && /^    / { print substr($0, 5); next }
		notes && /^$/ { next }
		notes { exit }
		/^---$/ { body = 1 }' "$1"
}

# Fixes: tags. Each fix names at least one commit, by an id and subject
# that scripts/fixes.verified lists (checked once against mainline's
# public history: the base has none); a fix without Cc: stable says why
# in its message or notes ("Not for stable: ..."). The RFC and the
# tests fix nothing in the base, so they carry no Fixes: tag.
fixes_tags()
{
	local patch tag id subject known bad=0

	for patch in $(unit_patches "$fixes_unit"); do
		[ -n "$(trailers "$patch" Fixes)" ] ||
			{ echo "error: $(patch_name "$patch"): no Fixes: tag"; bad=1; }
		while IFS= read -r tag; do
			if ! [[ "$tag" =~ ^([0-9a-f]{12})\ \(\"(.*)\"\)$ ]]; then
				echo "error: $(patch_name "$patch"): Fixes: $tag: not 12 hex digits and (\"subject\")"
				bad=1
				continue
			fi
			id=${BASH_REMATCH[1]} subject=${BASH_REMATCH[2]}
			known=$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$ROOT/scripts/fixes.verified")
			if [ -z "$known" ]; then
				echo "error: $(patch_name "$patch"): $id is not in scripts/fixes.verified"
				bad=1
			elif [ "$known" != "$subject" ]; then
				echo "error: $(patch_name "$patch"): $id is \"$known\", not \"$subject\""
				bad=1
			fi
		done < <(trailers "$patch" Fixes)
		if [ "$(trailers "$patch" Cc | grep -c '^stable@vger.kernel.org')" = 0 ] &&
			[ "$( (awk '/^---$/ { exit } { print }' "$patch"; patch_notes "$patch") |
				grep -ci 'not for stable')" = 0 ]; then
			echo "error: $(patch_name "$patch"): neither Cc: stable nor \"Not for stable\" and why"
			bad=1
		fi
	done
	for patch in "${patches[@]}"; do
		case "$patch" in "$PATCHES/$fixes_unit"/*) continue ;; esac
		[ -z "$(trailers "$patch" Fixes)" ] ||
			{ echo "error: $(patch_name "$patch"): a Fixes: tag outside the fixes unit"; bad=1; }
	done
	[ "$bad" -eq 0 ]
}

# Thread unit $1 as git send-email would, and let b4 pick it up.
b4_am()
{
	local unit=$1 mbox=$logs/$1.mbox out=$logs/b4-$1 n=0 patch applied folded
	local -a unit_list

	# b4 0.12 crashes on any header folded over two lines: an author name
	# and address, or a subject, too long for one line.
	mapfile -t unit_list < <(unit_patches "$unit")
	folded=$(awk 'FNR == 1 { head = 1 } /^$/ { head = 0 }
		head && /^[ \t]/ { print FILENAME ": folded " name " header" }
		head && /^[A-Za-z-]+:/ { name = $1 }' \
		"$PATCHES/$unit/0000-cover-letter.patch" "${unit_list[@]}")
	if [ -n "$folded" ]; then
		echo "error: b4 0.12 cannot read folded headers; shorten them:"
		echo "$folded"
		return 1
	fi

	: >"$mbox"
	for patch in "$PATCHES/$unit/0000-cover-letter.patch" "${unit_list[@]}"; do
		awk -v n=$n -v unit="$unit" '
			{ print }
			/^Date: / && !done {
				printf "Message-ID: <%s-%d@dmabuf-ownership.invalid>\n", unit, n
				if (n) {
					printf "In-Reply-To: <%s-0@dmabuf-ownership.invalid>\n", unit
					printf "References: <%s-0@dmabuf-ownership.invalid>\n", unit
				}
				done = 1
			}' "$patch" >>"$mbox"
		echo >>"$mbox"
		n=$((n + 1))
	done
	rm -rf "$out"
	mkdir -p "$out"
	# b4 0.12 wants a user.email in git's configuration even to apply;
	# a fresh machine has none.
	if git config user.email >/dev/null; then
		b4 --no-interactive am -C -m "$mbox" -o "$out" -n "$unit" || return 1
	else
		GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=check \
			GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=check@localhost \
			b4 --no-interactive am -C -m "$mbox" -o "$out" -n "$unit" || return 1
	fi
	applied=$(grep -c '^Subject: ' "$out/$unit.mbx") || return 1
	[ "$applied" -eq ${#unit_list[@]} ] ||
		{ echo "error: b4 kept $applied of ${#unit_list[@]} patches"; return 1; }
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

# Warnings of docutils for $2 at revision $1 of the am-check tree, one a
# line: "file:line: LEVEL: message". Sphinx is too slow for make check,
# so the directives and roles of Sphinx and of the kernel's extensions
# are stubbed (those whose content is reStructuredText still parse it),
# and kernel-doc directives are expanded as Documentation/sphinx/
# kerneldoc.py does, with the files they name taken from the same
# revision; kernel-doc itself does not say when a named section does not
# exist. What Sphinx resolves across documents (:ref:, :c:func: and the
# like) is not checked; a `name`_ reference must resolve in the document.
rst_warnings()
{
	PATH=/usr/bin:$PATH /usr/bin/python3 - "$am_tree" "$1" "$2" "$logs/rst/$1" <<'PY'
import io
import os
import re
import subprocess
import sys

from docutils import nodes, statemachine
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

tree, rev, path, root = sys.argv[1:5]


def materialize(rel):
    """Write file rel of revision rev below root; False if rev lacks it."""
    dest = os.path.join(root, rel)
    if os.path.isfile(dest):
        return True
    res = subprocess.run(["git", "-C", tree, "show", f"{rev}:{rel}"],
                         capture_output=True, check=False)
    if res.returncode:
        return False
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "wb") as out:
        out.write(res.stdout)
    return True


def kernel_doc(args):
    return subprocess.run([os.path.join(tree, "scripts/kernel-doc")] + args,
                          cwd=root, capture_output=True, text=True, check=False)


class AnyOptions(dict):
    """Sphinx's directives take options docutils does not know."""

    def __bool__(self):
        return True

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return directives.unchanged


class Body(Directive):
    """A Sphinx directive whose content is reStructuredText."""
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = AnyOptions()
    has_content = True

    def run(self):
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class Opaque(Body):
    """One whose content is code, a graph or a list of documents."""

    def run(self):
        return []


class KernelDoc(Directive):
    """Documentation/sphinx/kerneldoc.py, with the tree's kernel-doc."""
    required_arguments = 1
    optional_arguments = 4
    option_spec = {
        "doc": directives.unchanged_required,
        "export": directives.unchanged,
        "internal": directives.unchanged,
        "identifiers": directives.unchanged,
        "no-identifiers": directives.unchanged,
        "functions": directives.unchanged,
    }

    def run(self):
        src = self.arguments[0]
        reporter = self.state_machine.reporter
        if not materialize(src):
            return [reporter.error(f"kernel-doc: no file {src}", line=self.lineno)]
        opts = dict(self.options)
        if "functions" in opts:
            opts["identifiers"] = opts["functions"]
        args, names, msgs = [], [], []
        if "export" in opts or "internal" in opts:
            kind = "export" if "export" in opts else "internal"
            args = ["-" + kind]
            for pattern in (opts[kind] or "").split():
                msgs.append(reporter.warning(
                    f"kernel-doc: export file {pattern} not checked", line=self.lineno))
        elif "doc" in opts:
            names = [opts["doc"]]
        elif "identifiers" in opts:
            names = opts["identifiers"].split()
            if not names:
                args = ["-no-doc-sections"]
        for name in names:
            args += ["-function", name]
        for name in (opts.get("no-identifiers") or "").split():
            args += ["-nosymbol", name]

        for name in names:
            if not kernel_doc(["-rst", "-function", name, src]).stdout.strip():
                msgs.append(reporter.error(
                    f'kernel-doc: {src} has no DOC section or identifier "{name}"',
                    line=self.lineno))
        res = kernel_doc(["-rst", "-enable-lineno"] + args + [src])
        for line in res.stderr.splitlines():
            msgs.append(reporter.warning(f"kernel-doc: {line}", line=self.lineno))
        if res.returncode:
            msgs.append(reporter.error(f"kernel-doc: exit status {res.returncode}",
                                       line=self.lineno))

        # The output in place of the directive, with its messages at the
        # lines of the source file.
        lines = statemachine.ViewList()
        offset = 0
        for line in statemachine.string2lines(res.stdout, 8, convert_whitespace=True):
            match = re.match(r"^\.\. LINENO ([0-9]+)$", line)
            if match:
                offset = int(match.group(1)) - 1
                continue
            lines.append(line, src, offset)
            offset += 1
        node = nodes.section()
        memo_reporter = self.state.memo.reporter
        saved = memo_reporter.get_source_and_line
        memo_reporter.get_source_and_line = lines.info
        try:
            self.state.nested_parse(lines, 0, node, match_titles=1)
        finally:
            memo_reporter.get_source_and_line = saved
        return msgs + node.children


def literal_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.literal(rawtext, text)], []


# Sphinx's own, its C domain's (the kernel's primary domain, so also
# unprefixed), and those of Documentation/sphinx/; any other is an error.
C_OBJECTS = "function member macro var type struct union enum enumerator data".split()
ROLES = ("ref doc numref term keyword option envvar download any file samp kbd "
         "menuselection guilabel manpage command program dfn mimetype regexp "
         "cspan rspan expr texpr func mod class meth attr exc obj").split()
ROLES += C_OBJECTS + [f"c:{name}" for name in C_OBJECTS + ["func", "expr", "texpr", "id"]]
BODY = ("only ifconfig seealso versionadded versionchanged deprecated hlist "
        "glossary centered flat-table").split()
BODY += C_OBJECTS + [f"c:{name}" for name in C_OBJECTS]
OPAQUE = ("toctree code-block sourcecode highlight literalinclude index "
          "tabularcolumns productionlist cssclass kernel-include kernel-feat "
          "kernel-abi kernel-figure kernel-image kernel-render "
          "maintainers-include maintainers-profile-toc automodule "
          "c:namespace c:namespace-push c:namespace-pop c:alias").split()

for name in ROLES:
    roles.register_local_role(name, literal_role)
for name in BODY:
    directives.register_directive(name, Body)
for name in OPAQUE:
    directives.register_directive(name, Opaque)
directives.register_directive("kernel-doc", KernelDoc)

if not materialize(path):
    sys.exit(0)
source = os.path.join(root, path)
stream = io.StringIO()
with open(source, encoding="utf-8") as f:
    text = f.read()
publish_doctree(text, source_path=source, settings_overrides={
    "report_level": 2, "halt_level": 5, "warning_stream": stream,
    "tab_width": 8, "syntax_highlight": "none",
    "file_insertion_enabled": True, "raw_enabled": True,
})
for line in stream.getvalue().splitlines():
    match = re.match(r"^(.*?):(\d*):? \((\w+)/\d\) (.*)$", line)
    if match:
        where = match.group(1)
        if where.startswith(root + "/"):
            where = where[len(root) + 1:]
        print(f"{where}:{match.group(2)}: {match.group(3)}: {match.group(4)}")
PY
}

# The touched .rst files must give no docutils warning that the base did
# not give for the same file; compared without line numbers.
rst_check()
{
	local files file rev new=0 out

	rm -rf "$logs/rst"
	mapfile -t files < <(git -C "$am_tree" diff --name-only --diff-filter=AM base HEAD -- '*.rst')
	for file in "${files[@]}"; do
		# Each revision's warnings lie beside its copy of the file.
		for rev in base HEAD; do
			mkdir -p "$(dirname "$logs/rst/$rev/$file")"
			rst_warnings "$rev" "$file" >"$logs/rst/$rev/$file.warnings" || return 1
		done
		echo "$file: $(wc -l <"$logs/rst/HEAD/$file.warnings") warnings with the series," \
			"$(wc -l <"$logs/rst/base/$file.warnings") on the base"
		out=$(awk 'NR == FNR { new[$0]; next }
			{ key = $0; sub(/:[0-9]*: /, ": ", key) } key in new { print "error: " $0 }' \
			<(comm -13 <(sed -E 's/:[0-9]*: /: /' "$logs/rst/base/$file.warnings" | sort) \
				<(sed -E 's/:[0-9]*: /: /' "$logs/rst/HEAD/$file.warnings" | sort)) \
			"$logs/rst/HEAD/$file.warnings")
		[ -z "$out" ] || { echo "$out"; new=1; }
	done
	[ "$new" -eq 0 ]
}

# Both sides of every diff of patch $1.
patch_files()
{
	awk '/^diff --git / { print substr($3, 3); print substr($4, 3) }' "$1" | sort -u
}

# The addresses of the rules of file $1 ("GLOB ADDRESS...", # comments)
# whose GLOB, a bash pattern in which * also matches /, matches one of
# the other arguments.
rule_addresses()
{
	local rules=$1 glob addresses file

	shift
	while read -r glob addresses; do
		for file in "$@"; do
			# shellcheck disable=SC2053 # $glob is a pattern
			if [[ $file == $glob ]]; then
				tr -s ' \t' '\n' <<<"$addresses"
				break
			fi
		done
	done < <(sed -e 's/#.*//' -e '/^\s*$/d' "$rules")
}

# Who reviewers expect to see a patch, as rules of the same form as
# scripts/series.recipients; the DMA mapping maintainers as MAINTAINERS
# names them.
expected_recipients()
{
	local dma_buf="dri-devel@lists.freedesktop.org linaro-mm-sig@lists.linaro.org linux-media@vger.kernel.org"
	local dma_mapping

	dma_mapping=$(awk '/^DMA MAPPING HELPERS$/ { on = 1; next } /^$/ { on = 0 }
		on && /^[MR]:/' "$am_tree/MAINTAINERS" | sed -n 's/.*<\(.*\)>.*/\1/p' | paste -sd' ')
	[ -n "$dma_mapping" ] || { echo "error: no DMA MAPPING HELPERS in MAINTAINERS" >&2; return 1; }
	cat <<-EOF
		drivers/dma-buf/*		$dma_buf
		include/linux/dma-buf*		$dma_buf
		include/uapi/linux/dma-buf.h	$dma_buf
		drivers/media/*			$dma_buf
		kernel/dma/*			iommu@lists.linux.dev $dma_mapping
		include/uapi/*			linux-api@vger.kernel.org
	EOF
}

# The bare addresses of a recipients file, lower case.
bare_addresses()
{
	sed -E -e 's/^(To|Cc): //' -e 's/.*<(.*)>.*/\1/' "$@" | tr '[:upper:]' '[:lower:]'
}

# Write recipients/UNIT/NNNN.txt for every patch: "To: " the people
# get_maintainer.pl names, "Cc: " its lists and the additions of
# scripts/series.recipients; 0000.txt, the unit's cover letter's, has
# everyone of the unit. Then check them against expected_recipients.
recipients()
{
	local unit
	local -a unit_list

	mkdir -p "$logs/recipients"
	expected_recipients >"$logs/recipients/expected.rules" || return 1
	for unit in "${UNITS[@]}"; do
		mapfile -t unit_list < <(unit_patches "$unit")
		[ ${#unit_list[@]} -gt 0 ] || continue
		unit_recipients "$logs/recipients/$unit" "${unit_list[@]}" || return 1
	done
}

# recipients of the patches $2... into directory $1.
unit_recipients()
{
	local dir=$1 patch n files need missing=0 lists=()

	shift
	mkdir -p "$dir"
	for patch in "$@"; do
		n=$(basename "$patch" | cut -c1-4)
		lists+=("$dir/$n.txt")
		mapfile -t files < <(patch_files "$patch")
		# --no-fixes: the base has no history to find a Fixes: commit in.
		(cd "$am_tree" && scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-fixes --rolestats "$patch") >"$dir/$n.get_maintainer" || return 1
		{
			# "Name <address> (role)" or "list@address (open list:...)"
			awk '{
				if (match($0, /^[^(]*<[^>]*>/)) {
					address = substr($0, 1, RLENGTH); role = substr($0, RLENGTH + 1)
				} else {
					address = $1; role = substr($0, length($1) + 1)
				}
				print (role ~ /^ *\(([a-z]+ )?list/ ? "Cc: " : "To: ") address
			}' "$dir/$n.get_maintainer"
			rule_addresses "$ROOT/scripts/series.recipients" "${files[@]}" | sed 's/^/Cc: /'
		} | awk '{ key = tolower($0); sub(/^[a-z]+: /, "", key) } !seen[key]++' >"$dir/$n.txt"
		for need in $(rule_addresses "$dir/../expected.rules" "${files[@]}" | sort -u); do
			bare_addresses "$dir/$n.txt" | grep -qixF "$need" && continue
			echo "error: $(patch_name "$patch"): $need is not among its recipients"
			missing=1
		done
	done
	{
		grep -h '^To: ' "${lists[@]}"
		grep -h '^Cc: ' "${lists[@]}"
	} | awk '{ key = tolower($0); sub(/^[a-z]+: /, "", key) } !seen[key]++' >"$dir/0000.txt"
	# git send-email --to-cmd/--cc-cmd: the addresses for patch file $2.
	cat >"$dir/cmd" <<-'EOF'
		#!/bin/sh
		# Usage: cmd To|Cc PATCH_FILE; see Documentation/submitting.md.
		exec sed -n "s/^$1: //p" "$(dirname "$0")/$(basename "$2" | cut -c1-4).txt"
	EOF
	chmod +x "$dir/cmd"
	head -n 100 "$dir"/0*.txt
	[ "$missing" -eq 0 ]
}

sparse_out=$BUILD/static-sparse

# A sparse that the tree's kbuild accepts (without one, C=2 is only a
# warning): install-deps.sh builds one into the cache where Debian's is
# too old.
find_sparse()
{
	local candidate

	for candidate in "$CACHE/sparse/sparse" "$(command -v sparse || true)"; do
		[ -x "$candidate" ] || continue
		[ "$("$am_tree/scripts/checker-valid.sh" "$candidate" 2>/dev/null)" = 1 ] || continue
		echo "$candidate"
		return 0
	done
	return 1
}

# Sparse's findings in C=2 build log $1 for the units listed in file $2,
# without line numbers: "own<TAB>file: message<TAB>unit" for those in a
# unit itself, "header<TAB>file: message<TAB>unit" for those in what it
# includes.
sparse_findings()
{
	awk -v root="$am_tree/" '
		NR == FNR { units[$0]; next }
		index($0, root) == 1 { $0 = substr($0, length(root) + 1) }
		/: note: in included file/ { unit = $1; sub(/:$/, "", unit); next }
		/^[^ :]+:[0-9]+:[0-9]+: (warning|error): / {
			file = $0; sub(/:.*/, "", file)
			if (file ~ /\.c$/)
				unit = file
			if (!(unit in units))
				next
			message = $0; sub(/^[^ :]+:[0-9]+:[0-9]+: /, "", message)
			print (file == unit ? "own" : "header") "\t" file ": " message "\t" unit
		}' "$2" "$1"
}

# Configure build/static-sparse for the am-check tree at commit $2 (named
# $1): arm64's defconfig with the test kernel's fragments, which enable
# everything the series touches. Then build the touched C files it has
# and check them with C=2; the log is sparse/$1.log.
sparse_at()
{
	local name=$1 commit=$2 fragments file objects=() missing=0 start=$SECONDS

	git -C "$am_tree" checkout -q -f --detach "$commit" || return 1
	mapfile -t fragments < <(DEBUG=0 kernel_fragments "$am_tree")
	# DMA_API_DEBUG: the series touches kernel/dma/debug.c.
	{ cat "$am_tree/arch/arm64/configs/defconfig" "${fragments[@]}"
	  echo CONFIG_DMA_API_DEBUG=y; } >"$sparse_out/sparse.config"
	kmake -C "$am_tree" O="$sparse_out" KCONFIG_ALLCONFIG="$sparse_out/sparse.config" \
		alldefconfig >"$logs/sparse/$name-config.log" 2>&1 ||
		{ cat "$logs/sparse/$name-config.log"; return 1; }
	for file in "${sparse_files[@]}"; do
		[ -f "$am_tree/$file" ] || continue
		objects+=("${file%.c}.o")
		rm -f "$sparse_out/${file%.c}.o"
	done
	[ ${#objects[@]} -gt 0 ] || return 0
	# Build first, so that the C=2 pass only checks and its log has
	# sparse's output alone.
	kmake -C "$am_tree" O="$sparse_out" "${objects[@]}" || return 1
	for file in "${objects[@]}"; do
		[ -f "$sparse_out/$file" ] && continue
		echo "error: $name: the configuration does not build $file; enable it in sparse_at()"
		missing=1
	done
	[ "$missing" -eq 0 ] || return 1
	kmake -C "$am_tree" O="$sparse_out" C=2 CHECK="$sparse" "${objects[@]}" \
		>"$logs/sparse/$name.log" 2>&1 || { cat "$logs/sparse/$name.log"; return 1; }
	echo "$name: built and checked ${#objects[@]} files in $((SECONDS - start)) s"
}

# The findings of kind $1 in sparse/$2.log, sorted: each occurrence of
# those in a unit itself, one line per header and message for the others.
sparse_sorted()
{
	sparse_findings "$logs/sparse/$2.log" "$logs/sparse/units" |
		awk -F'\t' -v kind="$1" '$1 == kind { print $2 }' |
		sort | if [ "$1" = own ]; then cat; else uniq; fi
}

# Sparse must find nothing new in the touched C files, nor in the headers
# they include: a finding in the file itself counts once per occurrence,
# one in a header once per header and message, so that a new file
# including a header does not bring that header's old findings in.
sparse_check()
{
	local head status=0 kind new

	sparse=$(find_sparse) || {
		echo "error: no sparse that this tree accepts (scripts/checker-valid.sh): run scripts/install-deps.sh"
		return 1
	}
	echo "sparse: $sparse"
	mapfile -t sparse_files < <(git -C "$am_tree" diff --name-only --diff-filter=AM base HEAD -- \
		'*.c' ':!tools/' ':!scripts/')
	[ ${#sparse_files[@]} -gt 0 ] || return 0
	mkdir -p "$sparse_out" "$logs/sparse"
	printf '%s\n' "${sparse_files[@]}" >"$logs/sparse/units"
	head=$(git -C "$am_tree" rev-parse HEAD)
	if sparse_at base base && sparse_at HEAD "$head"; then
		for kind in own header; do
			new=$(comm -13 <(sparse_sorted "$kind" base) <(sparse_sorted "$kind" HEAD))
			[ -n "$new" ] || continue
			awk -F'\t' 'NR == FNR { new[$0]; next }
				$2 in new && !seen[$2 FS $3]++ { print "error: new: " $2 " (in " $3 ")" }' \
				<(echo "$new") <(sparse_findings "$logs/sparse/HEAD.log" "$logs/sparse/units")
			status=1
		done
		# After its first error sparse shows no more warnings for a unit.
		sparse_findings "$logs/sparse/HEAD.log" "$logs/sparse/units" |
			awk -F'\t' '$2 ~ /: error: / && !seen[$3]++ {
				print "note: sparse stops warning in " $3 " at " $2 }'
	else
		status=1
	fi
	# The other checks expect the series there.
	git -C "$am_tree" checkout -q -f --detach "$head" || status=1
	return "$status"
}

placeholder="Seed Maintainers <maintainers@users.noreply.a-seed-be8df3ad.example>"

# SEND=1: the sender's identity, as "git commit -s" in build/linux would
# sign off (its git configuration, or GIT_COMMITTER_NAME/EMAIL), must
# sign off every patch and the cover letter, and the placeholder identity
# the project works under must appear in none.
# kernel-overlay/mutations/ break the series as it is: each must still
# apply, or "make mutate" tests nothing.
mutations_apply()
{
	local mutation bad=0

	for mutation in "$ROOT"/kernel-overlay/mutations/*.patch; do
		if ! git -C "$am_tree" apply --check "$mutation"; then
			echo "error: $(basename "$mutation") does not apply to the series"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}

signed_off()
{
	local sender placeholder_address=${placeholder#*<} patch bad=0

	placeholder_address=${placeholder_address%>}
	sender=$(git -C "$TREE" -c user.useConfigOnly=true var GIT_COMMITTER_IDENT 2>/dev/null |
		sed -E 's/ [0-9]+ [-+][0-9]{4}$//') || true
	if [ -z "$sender" ]; then
		echo "error: no sender identity: set user.name and user.email with git config in build/linux"
		return 1
	fi
	echo "sender: $sender"
	if [[ ${sender,,} == *"<${placeholder_address,,}>" ]]; then
		echo "error: the sender is the placeholder identity $placeholder_address;" \
			"set your own with git config user.name/user.email in build/linux"
		bad=1
	fi
	for patch in "${covers[@]}" "${patches[@]}"; do
		if ! grep -qxF "Signed-off-by: $sender" "$patch"; then
			echo "error: $(patch_name "$patch"): no Signed-off-by: $sender"
			bad=1
		fi
		if grep -qiF "$placeholder_address" "$patch"; then
			grep -niF "$placeholder_address" "$patch" |
				sed "s|^|error: $(patch_name "$patch"): placeholder identity at line |"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}

for patch in "${patches[@]}"; do
	check "checkpatch $(patch_name "$patch")" checkpatch "$patch" || true
done

# Checks of the tree with the series applied (build/am-check).
tree_checks=("fixes apply alone" "kernel-doc" "MAINTAINERS" "rst" "recipients" "mutations apply"
	"sparse")

if [ ${#patches[@]} -eq 0 ]; then
	for name in "git am on base" "${UNITS[@]/#/b4 am }" "fixes tags" "${tree_checks[@]}"; do
		row "$name" 0 0 1 "no patches yet"
	done
	exit 0
fi
for unit in "${UNITS[@]}"; do
	if [ -z "$(unit_patches "$unit")" ]; then
		row "b4 am $unit" 0 0 1 "no patches yet"
		continue
	fi
	check "b4 am $unit" b4_am "$unit" || true
done
# With no fixes it still checks that the other units carry no Fixes: tag.
check "fixes tags" fixes_tags || true
if check "git am on base" git_am_on_base; then
	if [ -n "$(unit_patches "$fixes_unit")" ]; then
		check "fixes apply alone" fixes_apply_alone || true
	else
		row "fixes apply alone" 0 0 1 "no fixes yet"
	fi
	check "kernel-doc" kernel_doc || true
	check "MAINTAINERS" maintainers_cover || true
	check "rst" rst_check || true
	check "recipients" recipients || true
	check "mutations apply" mutations_apply || true
	# Last: it checks the base out in build/am-check for a while.
	check "sparse" sparse_check || true
else
	for name in "${tree_checks[@]}"; do
		row "$name" 0 0 1 "the series does not apply"
	done
fi
# Only when sending: until then the series carries the placeholder.
if [ "${SEND:-0}" = 1 ]; then
	check "sender sign-off" signed_off || true
fi
