#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the README's two commands as a newcomer would, on a fresh Debian 12:
# a minimal system made by debootstrap, with nothing installed and
# nothing cached, holding a clone of this checkout's HEAD.
#
#   fresh-machine.sh [DIR]    DIR: where the system goes (build/fresh)
#
# As root (debootstrap and chroot need it; apt-get install debootstrap
# first). The mirror is the one apt on this machine uses (DEBIAN_MIRROR
# overrides it). In the chroot, as root: scripts/install-deps.sh, then
# make test, each timed; their output and times go to DIR.log, and the
# per-step times of make test to DIR/root/project/build/logs/*.seconds.
# Exits with make test's status. DIR is made afresh at every run; a DIR
# that exists must be one this script made. The chroot's mounts live in
# a mount namespace of the script's own: the host never sees them, and
# they go when it ends, however it ends.

. "$(dirname "$0")/common.sh"

dir=$(realpath -m "${1:-$BUILD/fresh}")
log=$dir.log
stamp=$dir/.fresh-machine
suite=bookworm

[ "$(id -u)" -eq 0 ] || die "run as root: debootstrap and chroot need it"
if [ -z "${FRESH_MACHINE_NS:-}" ]; then
	exec unshare --mount --propagation private env FRESH_MACHINE_NS=1 "$0" "$@"
fi
command -v debootstrap >/dev/null || die "no debootstrap: apt-get install debootstrap"
[ "$dir" != / ] || die "DIR is /"
[ ! -e "$dir" ] || [ -e "$stamp" ] || [ -z "$(ls -A "$dir")" ] ||
	die "$dir exists and is not a system this script made; give a new DIR"
mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror in apt's configuration; set DEBIAN_MIRROR"
git -C "$ROOT" rev-parse -q --verify HEAD >/dev/null ||
	die "git cannot read $ROOT as root (safe.directory?)"
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
	note "warning: uncommitted changes are not in the clone; it has HEAD"

mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock -n 9 || die "another run uses $dir"

rm -rf --one-file-system "$dir"
mkdir -p "$dir"
touch "$stamp"
note "debootstrap $suite from $mirror into $dir (log: $log)"
: >"$log"
debootstrap --variant=minbase "$suite" "$dir" "$mirror" >>"$log" 2>&1 ||
	die "debootstrap failed: see $log"
git clone -q --no-hardlinks "$ROOT" "$dir/root/project"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
mount -t sysfs sys "$dir/sys"
mount --bind /dev "$dir/dev"
mount --bind /dev/pts "$dir/dev/pts"

note "in the chroot: scripts/install-deps.sh, then make test"
status=0
chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/project &&
		time scripts/install-deps.sh && time make test' >>"$log" 2>&1 || status=$?
grep -E '^(real|[0-9]+ passed)' "$log" >&2 || true
note "make test exited $status; step times: $dir/root/project/build/logs/*.seconds"
exit "$status"
