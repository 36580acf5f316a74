# SPDX-License-Identifier: GPL-2.0
# Shared settings for the project's scripts; sourced, never run.

set -euo pipefail
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
CACHE=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dmabuf-ownership}
TREE=$BUILD/linux
PATCHES=$ROOT/patches
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
JOBS=${JOBS:-$(nproc)}

# A half-removed build/linux must never let git fall through to this
# project's own repository.
export GIT_CEILING_DIRECTORIES=$BUILD

# shellcheck source=series.conf
. "$ROOT/scripts/series.conf"

# The patches of unit $1 of patches/ (default: every unit, in order),
# without the cover letters.
unit_patches()
{
	local unit

	for unit in "${@:-${UNITS[@]}}"; do
		[ -d "$PATCHES/$unit" ] || continue
		find "$PATCHES/$unit" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
			! -name '0000-cover-letter.patch' | sort
	done
}

PROG=$(basename "$0")

# The first argument is the message; any further ones follow on lines
# of their own.
die()
{
	echo "$PROG: error: $1" >&2
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@" >&2
	exit 1
}

note()
{
	echo "$PROG: $*" >&2
}

# Build directory of a test kernel: base or series, "-debug" with DEBUG=1.
kernel_out()
{
	if [ "${DEBUG:-0}" = 1 ]; then
		echo "$BUILD/out/$1-debug"
	else
		echo "$BUILD/out/$1"
	fi
}

# Make $1 a detached worktree of build/linux at $2, recreating it if it
# belongs to an earlier build/linux.
worktree_at()
{
	local dir=$1 rev=$2

	if [ "$(git -C "$dir" rev-parse --git-common-dir 2>/dev/null || true)" != "$TREE/.git" ]; then
		rm -rf "$dir"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$dir" "$rev"
	fi
	git -C "$dir" checkout -q -f --detach "$rev"
}

# The kernel's own make, cross-compiling for arm64; through ccache in
# build-kernel.sh (KBUILD_CC).
kmake()
{
	local verbose=-s

	# make V=1: every command, as the kernel's own build shows them
	# (kbuild reads V from its command line only).
	[ "${V:-0}" = 0 ] || verbose=V=$V
	make "$verbose" -j"$JOBS" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
		${KBUILD_CC:+CC="$KBUILD_CC"} "$@"
}

# Where build-kernel.sh compiles every kernel tree, so that the base, the
# series and the debug build share their objects through ccache: a file
# that two trees have alike compiles with the same command line in both.
# A bind mount in a mount namespace of the build's own puts the tree
# there.
SHARED_SRC=$BUILD/src

# Whether build-kernel.sh can share objects: ccache installed, and a bind
# mount in a mount namespace of its own (root, and no container policy
# against it).
can_share_objects()
{
	command -v ccache >/dev/null && mkdir -p "$SHARED_SRC" &&
		unshare --mount --propagation private mount --bind "$ROOT" "$SHARED_SRC" \
			2>/dev/null
}

# The configuration fragments of the test kernel of source tree $1, in
# the order they apply on top of allnoconfig (a later one overrides an
# earlier one): the QEMU platform, the kselftest collections' own config
# files (dmabuf-chain's from the series, whose kselftests run on both
# kernels), the board fragment, which decides what is a module as on a
# board, and the built-in KUnit suites; with DEBUG=1 the debug one too.
kernel_fragments()
{
	echo "$ROOT/kernel-overlay/configs/qemu-arm64.config"
	echo "$1/tools/testing/selftests/dmabuf-heaps/config"
	echo "$TREE/tools/testing/selftests/dmabuf-chain/config"
	echo "$ROOT/kernel-overlay/configs/board.config"
	echo "$ROOT/kunit/qemu.config"
	[ "${DEBUG:-0}" != 1 ] || echo "$ROOT/kernel-overlay/configs/debug.config"
}

# Configure the test kernel of source tree $1 in output directory $2.
kconfig()
{
	local fragments

	mapfile -t fragments < <(kernel_fragments "$1")
	cat "${fragments[@]}" >"$2/fragments.config"
	kmake -C "$1" O="$2" KCONFIG_ALLCONFIG="$2/fragments.config" allnoconfig
}

# The Debian mirror of this machine's apt sources, or $DEBIAN_MIRROR.
debian_mirror()
{
	if [ -n "${DEBIAN_MIRROR:-}" ]; then
		echo "$DEBIAN_MIRROR"
		return
	fi
	# shellcheck disable=SC2016 # apt-get's own $(...) fields
	apt-get indextargets --format '$(LABEL) $(REPO_URI)' |
		awk '$1 == "Debian" { print $2; exit }'
}

# Write into directory $1 an apt configuration of its own, whose only
# source is the sources.list line $2; use it with APT_CONFIG=$1/apt.conf.
# It leaves the machine's apt state alone, and apt still checks what it
# fetches against the signed Release file.
private_apt()
{
	local apt=$1

	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/preferences.d"
	echo "$2" >"$apt/sources.list"
	cat >"$apt/apt.conf" <<-CONF
		Dir::State "$apt";
		Dir::State::Lists "$apt/lists";
		Dir::State::status "/dev/null";
		Dir::Cache "$apt";
		Dir::Cache::archives "$apt/archives";
		Dir::Etc::SourceList "$apt/sources.list";
		Dir::Etc::SourceParts "/nonexistent";
		Dir::Etc::Preferences "$apt/preferences";
		Dir::Etc::PreferencesParts "$apt/preferences.d";
		Acquire::Languages "none";
		APT::Sandbox::User "root";
	CONF
}

# Update the private apt configuration $1 (private_apt) from mirror $2,
# whose suite $3 names in messages, once a day at most (apt-updated is the
# day's stamp, for this mirror and suite); the Release file is signed.
# Offline, apt keeps the lists it has: go on with them, and with what is
# cached, if any.
apt_update_daily()
{
	local apt=$1 mirror=$2 suite=$3 lists stamp

	lists=$(find "$apt/lists" -maxdepth 1 -name '*Release' -print -quit 2>/dev/null || true)
	stamp="$mirror $suite"
	[ -z "$(find "$apt/apt-updated" -mtime -1 2>/dev/null)" ] ||
		[ "$(cat "$apt/apt-updated")" != "$stamp" ] || return 0
	if APT_CONFIG=$apt/apt.conf apt-get -qq --error-on=any update >"$apt/update.log" 2>&1; then
		echo "$stamp" >"$apt/apt-updated"
	elif [ -n "$lists" ]; then
		note "cannot read $suite from $mirror; using its lists of" \
		     "$(date -r "$lists" +%F) and what is cached in $apt"
	else
		die "cannot read $suite from $mirror, and nothing is cached:" \
		    "$(tail -n 3 "$apt/update.log")"
	fi
}

# Fail at once on a KSELFTEST_FILTER that names no collection or program
# the boots have, listing the valid ones: the collections of
# SELFTEST_TARGETS and the series' dmabuf-chain, and, once build/linux
# exists, their programs.
check_kselftest_filter()
{
	local filter=${KSELFTEST_FILTER:-} collections entry c p dir progs

	collections="${SELFTEST_TARGETS:-dmabuf-heaps} dmabuf-chain"
	case "$filter" in
	"" | none) return 0 ;;
	esac
	# No globbing of the filter's words.
	local -
	set -f
	for entry in $(echo "${filter#-}" | tr , ' '); do
		c=${entry%%:*}
		p=${entry#*:}
		if [[ "$filter" == *,* || "$filter" == -*:* ]] && [[ "$entry" != *:* ]]; then
			die "KSELFTEST_FILTER=$filter: '$entry': a list, or a '-' with a program," \
				"takes COLLECTION:PROGRAM entries only"
		fi
		[ -n "$p" ] || die "KSELFTEST_FILTER=$filter: '$entry' names no program"
		[[ " $collections " == *" $c "* ]] ||
			die "KSELFTEST_FILTER=$filter: no collection '$c'" \
				"Collections: $collections; the forms: COLLECTION," \
				"-COLLECTION, COLLECTION:PROGRAM[,COLLECTION:PROGRAM...]," \
				"-COLLECTION:PROGRAM[,COLLECTION:PROGRAM...] (all but those) or none."
		dir=$TREE/tools/testing/selftests/$c
		[ "$p" != "$entry" ] && [ -e "$dir/Makefile" ] || continue
		# TEST_GEN_PROGS and TEST_PROGS, continuation lines included.
		progs=$(awk '/^TEST_(GEN_)?PROGS *[:+]?=/ { on = 1; sub(/^[^=]*= */, "") }
			on { more = sub(/\\$/, ""); print; on = more }' "$dir/Makefile" |
			tr -s ' \t' '\n\n')
		grep -qxF "$p" <<<"$progs" ||
			die "KSELFTEST_FILTER=$filter: no program '$p' in $c" \
				"Its programs: $(echo $progs)"
	done
}

# QEMU_TIMEOUT, or what a boot of kind $1 takes at most: the debug kernel
# runs the same tests several times slower under TCG, and the series'
# boot, with the benchmark's 2,256 rows, took from 570 s to over 1,000 s
# on 2 cores (its chain_bench alone once outlasted 900 s).
boot_timeout()
{
	if [ -n "${QEMU_TIMEOUT:-}" ]; then
		echo "$QEMU_TIMEOUT"
	elif [ "$1" = debug ]; then
		echo 3000
	else
		echo 2700
	fi
}

# KERNEL_ARGS for a boot of kind $1 (base, series, debug): the KUnit
# suites' random sequences default to what takes seconds on two cores, for
# kunit.py; the series' boot runs 10,000 per cache model and 5,000 per
# heap, and the debug boot, under KASAN, 10,000 and 1,000, as CI's time
# allows.
boot_args()
{
	local args=${KERNEL_ARGS:-} seq=

	case $1 in
	series) seq="dmabuf_kunit.ownership_sequences=10000 dmabuf_kunit.heap_sequences=5000" ;;
	debug) seq="dmabuf_kunit.ownership_sequences=10000 dmabuf_kunit.heap_sequences=1000" ;;
	esac
	echo "$seq${seq:+${args:+ }}$args"
}

# The result rows (build/results.tsv format) of one boot of
# selftests/run-qemu.sh with tag $4 (none for the default): KUnit from the
# console log, the kselftests' TAP against selftests/expected-results, and
# the console's cleanliness. $1 labels the kernel, $2 is its source tree,
# $3 its output directory; KSELFTEST_FILTER as given to the boot. Step
# logs go to $5. When a kernel's tests boot twice side by side, $6 names
# the boot: "kunit" (KUnit, and the kselftests of its filter) or
# "kselftest" (kselftests only, with kunit.enable=0).
boot_results()
{
	local kind=$1 src=$2 out=$3 suffix=${4:+-$4} logs=$5 part=${6:-}
	local console=$out/console$suffix.log tap=$out/kselftest$suffix.tap

	if [ "$part" != kselftest ]; then
		"$ROOT/kunit/results.py" --kernel "$kind" --src "$src" \
			--expect "$ROOT/kunit/expected-results" \
			--log "$logs/$kind$suffix-kunit.log" "$console" ||
			printf '%s\tkunit%s\t0\t1\t0\tresults.py failed\n' "$kind" "${part:+ ($part boot)}"
	fi
	"$ROOT/selftests/tap.py" --kernel "$kind" --filter="${KSELFTEST_FILTER:-}" \
		--expect "$ROOT/selftests/expected-results" "$tap" ||
		printf '%s\tkselftest%s\t0\t1\t0\ttap.py failed\n' "$kind" "${part:+ ($part boot)}"
	"$ROOT/scripts/check-console.sh" "$kind" "$console" \
		"console clean${part:+ ($part boot)}" ||
		printf '%s\tconsole clean%s\t0\t1\t0\tcheck-console.sh failed\n' "$kind" "${part:+ ($part boot)}"
}

# Write to $1 the gen_initramfs.sh list of what every test initramfs holds
# beside its root directory: the console and the mount points, so that
# building it needs no root.
initramfs_list()
{
	cat >"$1" <<-LIST
		dir /dev 0755 0 0
		nod /dev/console 0600 0 0 c 5 1
		dir /proc 0755 0 0
		dir /sys 0755 0 0
		dir /tmp 1777 0 0
	LIST
}

# For guests that run one script of Debian user space (make compliance,
# make userspace): copy kernel $1's Image and .config into directory
# $2, and its modules, if the V4L2 test drivers are modules, into
# $2/modules/usr/lib/modules: a /lib directory in the initramfs would
# replace the merged-/usr link to the programs' loader.
guest_kernel()
{
	local out

	out=$(kernel_out "$1")
	[ -f "$out/arch/arm64/boot/Image" ] || die "no $1 kernel in $out; run make kernels first"
	mkdir -p "$2"
	cp "$out/arch/arm64/boot/Image" "$out/.config" "$2/"
	if grep -q '^CONFIG_VIDEO_VIVID=m' "$out/.config"; then
		mkdir -p "$2/modules/usr"
		cp -a "$out/modules-install/lib" "$2/modules/usr/"
	fi
}

# Boot the kernel guest_kernel copied into directory $1, with command line
# $2, from an initramfs of the directories that follow (later ones win),
# its modules and initramfs_list's nodes; within QEMU_TIMEOUT seconds
# (default 1800). The console goes to $1/console.log, the guest's
# /dev/hvc0 to $1/guest.log. Directory $1/.. must hold usr/gen_init_cpio.
guest_boot()
{
	local dir=$1 cmdline=$2 inputs

	shift 2
	inputs=("$@")
	[ ! -d "$dir/modules" ] || inputs+=("$dir/modules")
	initramfs_list "$dir/initramfs.list"
	(cd "$dir/.." && "$TREE/usr/gen_initramfs.sh" -o "$dir/initramfs.cpio" \
		-u squash -g squash "${inputs[@]}" "$dir/initramfs.list")
	# 3 GiB from 1 GiB: the 32-bit dma-contig devices never bounce.
	timeout -k 10 "${QEMU_TIMEOUT:-1800}" qemu-system-aarch64 \
		-M virt -cpu max,pauth-impdef=on -smp 2 -m 3G \
		-display none -monitor none -no-reboot -nic none \
		-kernel "$dir/Image" -initrd "$dir/initramfs.cpio" \
		-append "$cmdline" \
		-serial "file:$dir/console.log" \
		-device virtio-serial-device \
		-chardev "file,id=out,path=$dir/guest.log" \
		-device virtconsole,chardev=out
}

# Boot the base and the series side by side, each from directory $1/KIND
# (made by guest_kernel), with command line $2 and the initramfs inputs
# that follow, plus scripts/guest-lib.sh at the initramfs's root, which
# the guest's script sources. Directory $1 must hold usr/gen_init_cpio.
# Fails if QEMU failed or timed out, or if a console shows a kernel
# problem.
guest_boot_pair()
{
	local dir=$1 cmdline=$2 kinds=(base series) pids=() status=0 kind i
	local start=$SECONDS

	shift 2
	mkdir -p "$dir/lib"
	install -m 0644 "$ROOT/scripts/guest-lib.sh" "$dir/lib/guest-lib.sh"
	for kind in "${kinds[@]}"; do
		note "$kind: booting, its output in ${dir#"$ROOT"/}/$kind/guest.log"
		guest_boot "$dir/$kind" "$cmdline" "$@" "$dir/lib" &
		pids+=($!)
	done
	for i in "${!kinds[@]}"; do
		wait "${pids[$i]}" || { note "${kinds[$i]}: QEMU failed or timed out"; status=1; }
	done
	note "both kernels done in $((SECONDS - start)) s"
	for kind in "${kinds[@]}"; do
		"$ROOT/scripts/check-console.sh" "$kind" "$dir/$kind/console.log" |
			awk -F'\t' '$4 != 0 { exit 1 }' || status=1
	done
	return "$status"
}
