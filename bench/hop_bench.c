// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark against the base: the bytes of CPU cache maintenance a
 * frame costs when the CPU fills a heap buffer, N devices of the test DMA
 * engine (CONFIG_DMABUF_TEST_ENGINE; built out of tree for the base) take
 * it in turn, each checking the data and writing its own, and the CPU
 * reads it back, and what a CPU access costs while devices keep the buffer
 * mapped. The same static binary runs on the base and on the series.
 *
 * The maintenance is counted by kprobe events on arm64's
 * arch_sync_dma_for_device() (a clean) and arch_sync_dma_for_cpu() (an
 * invalidate, except for DMA_TO_DEVICE, which does nothing there), summing
 * their sizes for this process only: an observer independent of the code
 * measured. QEMU does not model the CPU caches, so the counts, not the
 * times, are the result.
 *
 * On the series, the heaps' own dma_buf_maintenance tracepoint must report
 * the same bytes as the kprobes.
 *
 * Every case runs with devices that attach as before, and again with
 * devices that declare DMA_BUF_ATTACH_DEVICE_ONLY (series only; the base's
 * engine answers EOPNOTSUPP and the case is skipped). Each prints its
 * counts per frame and checks them:
 *   - N hops, without and inside a chain begun with
 *     DMA_BUF_IOCTL_DEVICE_CHAIN (series only): one clean and one
 *     invalidate of the buffer per hop, as on the base, except for
 *     device-only devices in a chain: one of each per frame, the minimum;
 *   - a CPU access while 4 devices keep the buffer mapped: 4 passes each
 *     way for devices that did not opt in, 1 for device-only devices;
 *   - a write-only CPU access while a device keeps the buffer mapped for
 *     writing: no invalidate on the base (its write-only hazard), one on
 *     the series, whose first patches fix it, with or without the flag.
 *
 * Usage: hop_bench   (loads the engine's module with devices=8 if absent)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "test_engine.h"

#define BUF_SIZE	(8u << 20)
#define FRAMES		4
#define TRACING		"/sys/kernel/tracing"
#define MAX_DEVICES	8

static const char * const heaps[] = { "system", "default_cma_region" };
static bool have_tracepoint;
static const unsigned int hop_counts[] = { 1, 2, 4, 8 };
static int test_nr;
static bool failed;

static int write_str(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);

	return n < 0 ? -errno : 0;
}

static void die(const char *what, int err)
{
	printf("Bail out! %s: %s\n", what, strerror(err));
	exit(1);
}

static void observer_setup(void)
{
	char filter[64];
	int ret;

	ret = write_str(TRACING "/kprobe_events",
			"p:hopbench/clean arch_sync_dma_for_device size=$arg2:u64\n"
			"p:hopbench/inval arch_sync_dma_for_cpu size=$arg2:u64 dir=$arg3:u32\n",
			O_TRUNC);
	if (ret)
		die("kprobe events on arch_sync_dma_for_*", -ret);

	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	if (write_str(TRACING "/events/hopbench/clean/filter", filter, 0))
		die("clean filter", errno);
	snprintf(filter, sizeof(filter), "common_pid == %d && dir != %d",
		 getpid(), 1 /* DMA_TO_DEVICE */);
	if (write_str(TRACING "/events/hopbench/inval/filter", filter, 0))
		die("invalidate filter", errno);
	if (write_str(TRACING "/buffer_size_kb", "8192", 0) ||
	    write_str(TRACING "/events/hopbench/enable", "1", 0))
		die("enable kprobe events", errno);

	/* The series' tracepoint; the base has none. */
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	have_tracepoint =
		!write_str(TRACING "/events/dma_buf/dma_buf_maintenance/filter",
			   filter, 0) &&
		!write_str(TRACING "/events/dma_buf/dma_buf_maintenance/enable",
			   "1", 0);
}

struct counts {
	uint64_t cleaned;
	uint64_t invalidated;
	/* As the dma_buf_maintenance tracepoint reports them. */
	uint64_t traced_cleaned;
	uint64_t traced_invalidated;
};

static uint64_t field(const char *line, const char *name)
{
	const char *p = strstr(line, name);

	return p ? strtoull(p + strlen(name), NULL, 0) : 0;
}

/* Sums the sizes in the trace since the last call, and clears it. */
static void observer_take(struct counts *c)
{
	char line[512];
	FILE *trace;

	memset(c, 0, sizeof(*c));
	trace = fopen(TRACING "/trace", "re");
	if (!trace)
		die("read trace", errno);
	while (fgets(line, sizeof(line), trace)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, " clean: ")) {
			c->cleaned += field(line, "size=");
		} else if (strstr(line, " inval: ")) {
			c->invalidated += field(line, "size=");
		} else if (strstr(line, " dma_buf_maintenance: ")) {
			c->traced_cleaned += field(line, "cleaned=");
			c->traced_invalidated += field(line, "invalidated=");
		}
	}
	fclose(trace);
	if (write_str(TRACING "/trace", "", O_TRUNC))
		die("clear trace", errno);
}

static void cpu_sync(int buf, uint64_t flags)
{
	int ret = buf_sync(buf, flags);

	if (ret)
		die("DMA_BUF_IOCTL_SYNC", -ret);
}

static void result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed |= !ok;
}

static void skip(const char *heap, const char *name, const char *why)
{
	printf("ok %d %s: %s # SKIP %s\n", ++test_nr, heap, name, why);
}

/* Whether the kernel has device chains; found on the first buffer. */
static int has_chains = -1;

static const char *kind(bool device_only)
{
	return device_only ? "device-only" : "no opt-in";
}

/* The engine's file of the case under way, and its devices' handles. */
static int engine = -1;
static uint32_t handle[MAX_DEVICES];
static unsigned int nr_devices;

/*
 * A buffer from @heap, mapped, with @devices engine devices attached,
 * device-only or not; -1 if skipped.
 */
static int case_open(const char *heap, unsigned int devices, bool device_only,
		     uint8_t **map, const char *name)
{
	int buf, ret = 0;

	buf = heap_alloc(heap, BUF_SIZE);
	if (buf < 0) {
		skip(heap, name, strerror(-buf));
		return -1;
	}
	*map = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	if (*map == MAP_FAILED)
		die("mmap", errno);
	engine = open(ENGINE_FILE, O_RDWR | O_CLOEXEC);
	if (engine < 0)
		die(ENGINE_FILE, errno);
	for (nr_devices = 0; nr_devices < devices && !ret; nr_devices++)
		ret = engine_attach(engine, buf, nr_devices,
				    device_only ? DMA_BUF_TE_ATTACH_DEVICE_ONLY : 0,
				    &handle[nr_devices]);
	if (ret == -EOPNOTSUPP && device_only) {
		skip(heap, name, "no DMA_BUF_ATTACH_DEVICE_ONLY");
		close(engine);
		munmap(*map, BUF_SIZE);
		close(buf);
		return -1;
	}
	if (ret)
		die("DMA_BUF_TE_IOC_ATTACH", -ret);

	if (has_chains < 0) {
		ret = chain_begin(buf, 0, NULL);
		has_chains = ret != -ENOTTY;
		if (has_chains && ret < 0)
			die("DMA_BUF_IOCTL_DEVICE_CHAIN", -ret);
		if (has_chains)
			close(ret);
	}

	return buf;
}

/* Closing the engine's file detaches its devices. */
static void case_close(int buf, uint8_t *map)
{
	close(engine);
	munmap(map, BUF_SIZE);
	close(buf);
}

/* Every device maps the buffer DMA_BIDIRECTIONAL (@cmd MAP) or unmaps it. */
static void devices(unsigned long cmd)
{
	unsigned int i;
	int ret;

	for (i = 0; i < nr_devices; i++) {
		ret = engine_map(engine, cmd, handle[i], DMA_BUF_TE_BIDIRECTIONAL);
		if (ret)
			die("DMA_BUF_TE_IOC_MAP/UNMAP", -ret);
	}
}

/*
 * Every device in turn maps the buffer DMA_BIDIRECTIONAL, checks that it
 * holds @seed's pattern, writes the next seed's, and unmaps it. Returns
 * the last seed.
 */
static uint64_t run_hops(uint64_t seed)
{
	unsigned int i;

	for (i = 0; i < nr_devices; i++) {
		struct dma_buf_te_job job = {
			.op = DMA_BUF_TE_JOB_READ, .src = handle[i],
		};

		if (engine_map(engine, DMA_BUF_TE_IOC_MAP, handle[i],
			       DMA_BUF_TE_BIDIRECTIONAL) ||
		    engine_job(engine, &job))
			die("engine read", errno);
		if (job.checksum != pattern_checksum(seed, BUF_SIZE))
			die("an engine device read stale data", EIO);
		job = (struct dma_buf_te_job){
			.op = DMA_BUF_TE_JOB_WRITE, .dst = handle[i],
			.seed = ++seed,
		};
		if (engine_job(engine, &job) ||
		    engine_map(engine, DMA_BUF_TE_IOC_UNMAP, handle[i], 0))
			die("engine write", errno);
	}

	return seed;
}

/* On the series, the heap's tracepoint must report what the kprobes saw. */
static bool tracepoint_agrees(const struct counts *c)
{
	if (!have_tracepoint)
		return true;
	if (c->traced_cleaned == c->cleaned &&
	    c->traced_invalidated == c->invalidated)
		return true;

	printf("# the heap's tracepoint reports %llu cleaned, %llu invalidated\n",
	       (unsigned long long)c->traced_cleaned,
	       (unsigned long long)c->traced_invalidated);
	return false;
}

static const char *agreement(void)
{
	return have_tracepoint ? "; the heap's tracepoint agrees" : "";
}

static void run_pipeline(const char *heap, unsigned int hops, bool in_chain,
			 bool device_only)
{
	struct counts c;
	char name[64];
	uint64_t want;
	int buf, frame, chain;
	uint8_t *map;
	bool ok;

	snprintf(name, sizeof(name), "%u hops%s, %s", hops,
		 in_chain ? " in a chain" : "", kind(device_only));
	buf = case_open(heap, hops, device_only, &map, name);
	if (buf < 0)
		return;
	if (in_chain && !has_chains) {
		skip(heap, name, "DMA_BUF_IOCTL_DEVICE_CHAIN: ENOTTY");
		goto out;
	}

	observer_take(&c);
	for (frame = 1; frame <= FRAMES; frame++) {
		uint64_t seed = frame << 8;
		uint32_t *words = (uint32_t *)map;
		size_t i;

		cpu_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
		for (i = 0; i < BUF_SIZE / sizeof(*words); i++)
			words[i] = pattern_word(seed, i);
		cpu_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);

		chain = in_chain ? chain_begin(buf, 0, NULL) : -1;
		if (in_chain && chain < 0)
			die("DMA_BUF_IOCTL_DEVICE_CHAIN", -chain);
		seed = run_hops(seed);
		if (in_chain)
			close(chain);

		cpu_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
		for (i = 0; i < BUF_SIZE / sizeof(*words); i++)
			if (words[i] != pattern_word(seed, i))
				die("the CPU read stale data", EIO);
		cpu_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	}
	observer_take(&c);

	want = (uint64_t)(device_only && in_chain ? 1 : hops) * BUF_SIZE;
	ok = tracepoint_agrees(&c) && c.cleaned == want * FRAMES &&
	     c.invalidated == want * FRAMES;
	result(ok,
	       "%s: %s: per frame %llu bytes cleaned, %llu invalidated (expected %llu each)%s",
	       heap, name, (unsigned long long)(c.cleaned / FRAMES),
	       (unsigned long long)(c.invalidated / FRAMES),
	       (unsigned long long)want, agreement());
out:
	case_close(buf, map);
}

/*
 * A CPU access while CPU_ACCESS_DEVICES devices keep the buffer mapped:
 * the heap syncs every mapped attachment that did not opt in, and once per
 * buffer for device-only ones.
 */
#define CPU_ACCESS_DEVICES 4

static void run_cpu_access(const char *heap, bool device_only)
{
	uint64_t want;
	struct counts c;
	uint8_t *map;
	int buf;
	bool ok;

	buf = case_open(heap, CPU_ACCESS_DEVICES, device_only, &map,
			device_only ? "CPU access, device-only" :
				      "CPU access, no opt-in");
	if (buf < 0)
		return;
	devices(DMA_BUF_TE_IOC_MAP);
	observer_take(&c);
	cpu_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
	map[0] = 1;
	cpu_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
	observer_take(&c);
	devices(DMA_BUF_TE_IOC_UNMAP);

	want = (uint64_t)(device_only ? 1 : CPU_ACCESS_DEVICES) * BUF_SIZE;
	ok = tracepoint_agrees(&c) && c.cleaned == want &&
	     c.invalidated == want;
	result(ok,
	       "%s: CPU access with %d %s devices mapped: %llu bytes cleaned, %llu invalidated (expected %llu each)%s",
	       heap, CPU_ACCESS_DEVICES, kind(device_only),
	       (unsigned long long)c.cleaned,
	       (unsigned long long)c.invalidated, (unsigned long long)want,
	       agreement());
	case_close(buf, map);
}

/*
 * A device keeps the buffer mapped for writing, then the CPU begins a
 * write-only access. A partial-line CPU write into a stale line would merge
 * stale bytes over the device's data, so the lines must be invalidated.
 * The base syncs every mapping with the CPU's direction, DMA_TO_DEVICE,
 * and invalidates nothing on arm64; the series' first patches fix that by
 * syncing the mapping in its own direction, so on the series a device that
 * did not opt in gets the invalidate too, and a device-only one gets it
 * from the heap's ownership helper.
 */
static void run_write_only(const char *heap, bool device_only)
{
	uint64_t want;
	struct counts c;
	uint8_t *map;
	int buf;
	bool ok;

	buf = case_open(heap, 1, device_only, &map,
			device_only ? "write-only access, device-only" :
				      "write-only access, no opt-in");
	if (buf < 0)
		return;
	devices(DMA_BUF_TE_IOC_MAP);
	observer_take(&c);
	cpu_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	observer_take(&c);
	map[1] = 1;
	cpu_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	devices(DMA_BUF_TE_IOC_UNMAP);

	want = device_only || has_chains > 0 ? BUF_SIZE : 0;
	ok = tracepoint_agrees(&c) && c.invalidated == want;
	result(ok,
	       "%s: write-only access after a %s device wrote: %llu bytes invalidated (expected %llu)%s",
	       heap, kind(device_only), (unsigned long long)c.invalidated,
	       (unsigned long long)want, agreement());
	case_close(buf, map);
}

int main(void)
{
	int loaded = module_require(ENGINE_MODULE,
				    (const char *const[]){ "devices=8", NULL });
	const char *missing = engine_missing(MAX_DEVICES);
	unsigned int h, n, d;

	printf("TAP version 13\n1..%zu\n",
	       sizeof(heaps) / sizeof(heaps[0]) * 2 *
	       (sizeof(hop_counts) / sizeof(hop_counts[0]) * 2 + 2));
	if (loaded == -EIO || missing) {
		printf("Bail out! %s\n",
		       loaded == -EIO ? "modprobe " ENGINE_MODULE " failed" : missing);
		return 1;
	}
	observer_setup();

	for (h = 0; h < sizeof(heaps) / sizeof(heaps[0]); h++) {
		for (d = 0; d < 2; d++) {
			for (n = 0; n < sizeof(hop_counts) / sizeof(hop_counts[0]); n++) {
				run_pipeline(heaps[h], hop_counts[n], false, d);
				run_pipeline(heaps[h], hop_counts[n], true, d);
			}
			run_cpu_access(heaps[h], d);
			run_write_only(heaps[h], d);
		}
	}

	write_str(TRACING "/events/hopbench/enable", "0", 0);
	write_str(TRACING "/events/dma_buf/dma_buf_maintenance/enable", "0", 0);
	write_str(TRACING "/kprobe_events", "", O_TRUNC);
	if (loaded == 1)
		module_release(ENGINE_MODULE);

	return failed;
}
