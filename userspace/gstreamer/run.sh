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
# guest.txt without its CRs) and console.log, and run/pipeline.md: per
# kernel and run of the end-to-end program, its frames, the chains it held
# and the maintenance of its pool. Fails if a boot shows a kernel problem,
# if a run fails or does not end, if the unit test did not find the
# kernel's device chains on the series and their absence on the base, if
# a run of the program did not show all its frames, if any run but the
# series' in chains held a chain or those held none, if a frame came to
# the program with its chain still open past the overlay (a CPU stage in
# the middle), or one did not without it, if one left a chain open once
# stopped, if a frame differs between the runs of a pipeline or has the
# same checksum with the overlay as without it, or if the
# program killed mid-stream (with chains open, on the series) left a chain
# or a dmabuf behind. The kernels must be built (make kernels).

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

status=0
guest_boot_pair "$run" "$cmdline" "$debian" "$work/root" "$run/script" || status=1

labels=(dmabufchain-check pipeline pipeline-in-chains pipeline-overlay-in-chains
	pipeline-killed)
frames=16
for kind in "${kinds[@]}"; do
	# The virtio console ends lines with CR LF.
	log=$run/$kind/guest.txt
	tr -d '\r' <"$run/$kind/guest.log" >"$log"
	for label in "${labels[@]}"; do
		grep -qx "### END $label 0" "$log" ||
			{ note "$kind: $label did not end, or failed"; status=1; }
	done
	[ "$kind" = series ] && want="has device" || want="has no device"
	grep -q "^dmabufchain: the kernel $want chains" "$log" ||
		{ note "$kind: the unit test did not find that the kernel $want chains"; status=1; }
	note "$kind: $(grep -m1 '^[0-9]*%: Checks' "$log" || echo 'no gst-check summary')"
	killed=$(grep -m1 '^killed after ' "$log" || true)
	note "$kind: ${killed:-the killed run printed nothing}"
	# "killed after F frames (status S): N chains seen, L chains and B dmabufs left"
	read -r _ _ _ _ _ _ seen _ _ chains _ _ bufs _ <<<"${killed:-x}"
	case "$kind:${seen:-}" in
	base:0 | series:[1-9]*) ;;
	*) note "$kind: the killed run saw ${seen:-no} chains open"; status=1 ;;
	esac
	[ "${chains:-x}" = 0 ] && [ "${bufs:-x}" = 0 ] ||
		{ note "$kind: the killed program left chains or dmabufs behind"; status=1; }
done

# Per kernel and run of the end-to-end program: its frames, the chains it
# held, how many frames came with their buffer's chain still open, and
# what the kernel cleaned and invalidated in its pool. A frame has the
# same checksum in every run of the same pipeline, with chains or not, and
# another with the overlay than without.
LC_ALL=C awk -v frames="$frames" '
	FNR == 1 { kind = FILENAME; sub(".*/run/", "", kind); sub("/.*", "", kind) }
	/^### RUN / { label = $3; pipeline = label; sub("-in-chains$", "", pipeline) }
	/^### END / { label = "" }
	label !~ /^pipeline/ || label == "pipeline-killed" { next }
	/^frame / {
		k = kind " " label
		n[k]++; chains[k] += $6; spans[k] += $8
		key = pipeline " frame " $2
		if ((key in sum) && sum[key] != $4)
			differ = differ " " key
		sum[key] = $4
	}
	/^end / && $3 != 0 { bad = bad "; " kind " " label ": " $3 " chains left open at the end" }
	/^frame / || /^end / {
		k = kind " " label
		c[k] += $(NF - 6); i[k] += $(NF - 4); y[k] += $(NF - 2); ends[k] += /^end /
	}
	END {
		for (k in n) {
			split(k, f, " ")
			printf "| %s | %s | %d | %d | %d | %d | %d | %d |\n", f[1], f[2], n[k], chains[k], spans[k], c[k], i[k], y[k]
			if (n[k] != frames || ends[k] != 1)
				bad = bad "; " k ": " n[k] " frames, " ends[k] " end lines"
			in_chains = f[1] == "series" && f[2] ~ /-in-chains$/
			if (in_chains != (chains[k] > 0))
				bad = bad "; " k ": " chains[k] " chains held"
			# Every frame where nothing maps the buffer before the
			# program, and none where the overlay does.
			if (spans[k] != (in_chains && f[2] == "pipeline-in-chains" ? n[k] : 0))
				bad = bad "; " k ": " spans[k] " frames came in their chain"
		}
		# The overlay draws its square into every frame.
		for (key in sum) {
			plain = key
			if (sub("^pipeline-overlay ", "pipeline ", plain) && (plain in sum) &&
			    sum[plain] == sum[key])
				square = square " " key
		}
		if (square != "")
			bad = bad "; the same checksum with the overlay as without it:" square
		if (length(n) != 6)
			bad = bad "; " length(n) " runs of 6"
		if (differ != "")
			bad = bad "; these differ between runs:" differ
		if (bad != "") {
			print substr(bad, 3) > "/dev/stderr"
			exit 1
		}
	}' "$run"/{base,series}/guest.txt | sort >"$run/rows" || status=1
{
	echo "| kernel | run | frames | chains held | frames in their chain | cleaned bytes | invalidated bytes | syncs |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	cat "$run/rows"
} >"$run/pipeline.md"
cat "$run/pipeline.md"
exit "$status"
