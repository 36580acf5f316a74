#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run what build.sh built on both kernels under QEMU, side by side: an
# initramfs of Debian's arm64 busybox and GStreamer runtime, with
# build/gstreamer/root/ in place of Debian's files, runs guest.sh.
#
#   userspace/gstreamer/run.sh
#
# Writes build/gstreamer/run/KERNEL/guest.log (what the guest printed;
# guest.txt without its CRs) and console.log, and run/pipeline.md, the
# end-to-end program's cost on each kernel, without and with chains. Fails if a run fails on either kernel, if the unit
# test did not find the kernel's device chains on the series and their
# absence on the base, or if a boot shows a kernel problem. The kernels
# must be built (make kernels). Also fails if a frame of the end-to-end
# program differs between the kernels or runs.

. "$(dirname "$0")/../../scripts/common.sh"

work=$BUILD/gstreamer
run=$work/run
debian=$work/guest
kinds=(base series)
# Built-in drivers take their parameters here; as modules, guest.sh
# passes the same to modprobe. The kernel has no binfmt_script: busybox
# itself is init.
cmdline="console=ttyAMA0 panic=-1 kunit.enable=0 vivid.n_devs=2 vivid.allocators=1,0"
cmdline+=" rdinit=/usr/bin/busybox -- sh /gstreamer.sh"

[ -x "$work/root/usr/bin/dmabufchain-check" ] ||
	die "nothing built in $work/root; run userspace/gstreamer/build.sh first"

rm -rf "$run"
mkdir -p "$run/usr" "$run/script"
for kind in "${kinds[@]}"; do
	guest_kernel "$kind" "$run/$kind"
done

note "fetching Debian's arm64 busybox-static and GStreamer runtime"
"$ROOT/scripts/fetch-debs.sh" arm64 "$debian" busybox-static \
	libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 \
	gstreamer1.0-plugins-base >/dev/null
install -m 0755 "$ROOT/userspace/gstreamer/guest.sh" "$run/script/gstreamer.sh"
# gen_initramfs.sh runs usr/gen_init_cpio from its working directory.
cc -O2 -o "$run/usr/gen_init_cpio" "$TREE/usr/gen_init_cpio.c"

start=$SECONDS
pids=()
for kind in "${kinds[@]}"; do
	note "$kind: booting, output in ${run#"$ROOT"/}/$kind/guest.log"
	guest_boot "$run/$kind" "$cmdline" "$debian" "$work/root" "$run/script" &
	pids+=($!)
done
status=0
for i in "${!kinds[@]}"; do
	wait "${pids[$i]}" || { note "${kinds[$i]}: QEMU failed or timed out"; status=1; }
done
note "both kernels done in $((SECONDS - start)) s"

for kind in "${kinds[@]}"; do
	# The virtio console ends lines with CR LF.
	log=$run/$kind/guest.txt
	tr -d '\r' <"$run/$kind/guest.log" >"$log"
	"$ROOT/scripts/check-console.sh" "$kind" "$run/$kind/console.log" |
		awk -F'\t' '$4 != 0 { exit 1 }' || status=1
	ends=$(grep -c '^### END ' "$log" || true)
	failed=$(grep '^### END ' "$log" | awk '$4 != 0 { print $3 }' | paste -sd' ')
	[ "$ends" -gt 0 ] && [ -z "$failed" ] ||
		{ note "$kind: failed: ${failed:-no run ended}"; status=1; }
	[ "$kind" = series ] && want="has device" || want="has no device"
	grep -q "^dmabufchain: the kernel $want chains" "$log" ||
		{ note "$kind: the unit test did not find that the kernel $want chains"; status=1; }
	note "$kind: $ends runs, $(grep -m1 '^[0-9]*%: Checks' "$log" || echo 'no gst-check summary')"
done

# The pipeline's frames must be the same on both kernels, chains or not;
# the table sums what the counted frames cost.
table=$run/pipeline.md
{
	echo "| kernel | run | frames | cleaned bytes | invalidated bytes | syncs |"
	echo "| --- | --- | ---: | ---: | ---: | ---: |"
	for kind in "${kinds[@]}"; do
		awk -v kind="$kind" '
			/^### RUN / { label = $3; next }
			/^frame / && label ~ /^pipeline/ {
				n[label]++; c[label] += $6; i[label] += $8; y[label] += $10
			}
			END {
				for (l in n)
					printf "| %s | %s | %d | %d | %d | %d |\n",
					       kind, l, n[l], c[l], i[l], y[l]
			}' "$run/$kind/guest.txt" | sort
	done
} >"$table"
cat "$table"
# Frame N's checksum, in every run on both kernels: one line a frame.
mismatches=$(awk '/^frame / { print $2, $4 }' "$run"/*/guest.txt | sort -u |
	awk '{ print $1 }' | uniq -d | wc -l)
frames=$(cat "$run"/*/guest.txt | grep -c '^frame ' || true)
[ "$frames" -gt 0 ] && [ "$mismatches" -eq 0 ] ||
	{ note "the frames differ between the kernels or runs, or none was counted"; status=1; }
exit "$status"
