#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The media subsystem's own acceptance test, base against series: boot
# both kernels side by side under QEMU with an initramfs of Debian's
# v4l-utils and busybox, run v4l2-compliance -s on the video nodes of
# vivid (dma-contig and vmalloc), vim2m and vimc, and with a DMABUF
# exporter on the dma-contig ones (scripts/v4l2-compliance-guest.sh), and
# compare the results.
#
#   v4l2-compliance.sh
#
# Writes build/compliance/compliance.md (the table) and, per kernel,
# build/compliance/KERNEL/compliance.log (v4l2-compliance's output) and
# console.log. Exits non-zero if a result of the series differs from the
# base's, or if a boot shows a kernel problem. The kernels must be built
# (make kernels); their Images are copied first, since a build may replace
# them while the guests run. QEMU_TIMEOUT (seconds, default 1800) bounds a
# boot.

. "$(dirname "$0")/common.sh"

work=$BUILD/compliance
root=$work/root
timeout=${QEMU_TIMEOUT:-1800}
kinds=(base series)
# Built-in drivers take their parameters here; as modules, the guest
# script passes the same to modprobe.
cmdline="console=ttyAMA0 panic=-1 kunit.enable=0 vivid.n_devs=2 vivid.allocators=1,0 vimc.allocator=1"
# The kernel has no binfmt_script: busybox itself is init.
cmdline+=" rdinit=/usr/bin/busybox -- sh /compliance.sh"

rm -rf "$work"
mkdir -p "$work/usr"

for kind in "${kinds[@]}"; do
	out=$(kernel_out "$kind")
	[ -f "$out/arch/arm64/boot/Image" ] || die "no $kind kernel in $out; run make kernels first"
	mkdir -p "$work/$kind"
	cp "$out/arch/arm64/boot/Image" "$out/.config" "$work/$kind/"
	# Drivers built as modules go into the initramfs under /usr/lib/modules:
	# a /lib directory there would replace the merged-/usr link to the
	# programs' loader.
	if grep -q '^CONFIG_VIDEO_VIVID=m' "$out/.config"; then
		mkdir -p "$work/$kind/modules/usr"
		cp -a "$out/modules-install/lib" "$work/$kind/modules/usr/"
	fi
done

note "fetching busybox-static and v4l-utils for arm64"
"$ROOT/scripts/fetch-debs.sh" arm64 "$root" busybox-static v4l-utils >/dev/null
rm -rf "${root:?}/usr/share"
install -m 0755 "$ROOT/scripts/v4l2-compliance-guest.sh" "$root/compliance.sh"

# gen_initramfs.sh runs usr/gen_init_cpio from its working directory;
# build it from the tree rather than depend on a kernel's output.
cc -O2 -o "$work/usr/gen_init_cpio" "$TREE/usr/gen_init_cpio.c"
initramfs_list "$work/initramfs.list"

boot()
{
	local kind=$1 dir=$work/$1 inputs=("$root")

	[ ! -d "$dir/modules" ] || inputs+=("$dir/modules")
	(cd "$work" && "$TREE/usr/gen_initramfs.sh" -o "$dir/initramfs.cpio" \
		-u squash -g squash "${inputs[@]}" initramfs.list)
	# 3 GiB from 1 GiB: the 32-bit dma-contig devices never bounce.
	timeout -k 10 "$timeout" qemu-system-aarch64 \
		-M virt -cpu max,pauth-impdef=on -smp 2 -m 3G \
		-display none -monitor none -no-reboot -nic none \
		-kernel "$dir/Image" -initrd "$dir/initramfs.cpio" \
		-append "$cmdline" \
		-serial "file:$dir/console.log" \
		-device virtio-serial-device \
		-chardev "file,id=out,path=$dir/compliance.log" \
		-device virtconsole,chardev=out
}

# Both at once: the drivers stream in real time, so the guests mostly wait.
start=$SECONDS
pids=()
for kind in "${kinds[@]}"; do
	note "$kind: booting, v4l2-compliance in $work/$kind/compliance.log"
	boot "$kind" &
	pids+=($!)
done
status=0
for i in "${!kinds[@]}"; do
	wait "${pids[$i]}" || { note "${kinds[$i]}: QEMU failed or timed out"; status=1; }
done
note "both kernels done in $((SECONDS - start)) s"

for kind in "${kinds[@]}"; do
	"$ROOT/scripts/check-console.sh" "$kind" "$work/$kind/console.log" |
		awk -F'\t' '$4 != 0 { exit 1 }' || status=1
done
"$ROOT/scripts/v4l2-compliance-table.py" \
	"$work/base/compliance.log" "$work/series/compliance.log" >"$work/compliance.md" || status=1
cat "$work/compliance.md"
exit "$status"
