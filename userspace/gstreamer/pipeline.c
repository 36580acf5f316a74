// SPDX-License-Identifier: GPL-2.0
/*
 * The end-to-end run of the GStreamer patches. A V4L2 capture device fills
 * a pool of CMA heap dmabufs that this program offers to v4l2src
 * (io-mode=dmabuf-import) through appsink, and this program, a CPU stage,
 * checksums every frame it gets. With GST_V4L2_DMABUF_DEVICE_CHAIN set,
 * the patched V4L2 plugin joins the device chain of each buffer it queues,
 * and this program's map ends it.
 *
 *   gst-chain-pipeline DEVICE FRAMES
 *
 * FRAMES frames are captured; a line is printed for each that comes once
 * every buffer of the pool has been seen:
 *
 *   frame N sum S cleaned C invalidated I syncs Y maps M
 *
 * S is a checksum of the frame; C and I are the bytes of the pool's
 * buffers the kernel cleaned and invalidated since the previous frame,
 * counted by the kselftests' observer (kprobes on arm64's
 * arch_sync_dma_for_device/cpu()); Y the calls that did it; M the maps of
 * the pool's buffers by vivid. Exits non-zero on any error.
 */
#include <fcntl.h>
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <linux/dma-heap.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cache_observer.h"

#define POOL_BUFS	4
#define CAPS		"video/x-raw,format=RGB,width=640,height=480"

/* A dmabuf allocator on the CMA heap, which any V4L2 driver can import. */
typedef GstDmaBufAllocator HeapAllocator;
typedef GstDmaBufAllocatorClass HeapAllocatorClass;
G_DEFINE_TYPE(HeapAllocator, heap_allocator, GST_TYPE_DMABUF_ALLOCATOR)

static GstMemory *heap_alloc(GstAllocator *allocator, gsize size,
			     GstAllocationParams *params)
{
	static const char *const names[] = {
		"default_cma_region", "linux,cma", "reserved",
	};
	struct dma_heap_allocation_data data = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	char path[64];
	guint i;
	int heap;

	for (i = 0; i < G_N_ELEMENTS(names); i++) {
		g_snprintf(path, sizeof(path), "/dev/dma_heap/%s", names[i]);
		heap = open(path, O_RDONLY | O_CLOEXEC);
		if (heap < 0)
			continue;
		if (!ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data)) {
			close(heap);
			return gst_fd_allocator_alloc(allocator, data.fd, size,
						      GST_FD_MEMORY_FLAG_NONE);
		}
		close(heap);
	}
	g_printerr("no CMA heap allocation of %zu bytes\n", size);
	return NULL;
}

static void heap_allocator_class_init(HeapAllocatorClass *klass)
{
	GST_ALLOCATOR_CLASS(klass)->alloc = heap_alloc;
}

static void heap_allocator_init(HeapAllocator *self)
{
}

struct run {
	GstAllocator *allocator;
	GstBufferPool *pool;
	GstMemory *seen[POOL_BUFS];	/* the pool's memories, as they come */
	guint nr_seen, frame;
	gboolean failed;
};

static void fail(struct run *run, const char *what, int err)
{
	g_printerr("%s: %s\n", what, g_strerror(-err));
	run->failed = TRUE;
}

/* Offers the heap pool to v4l2src. */
static gboolean propose_allocation(GstAppSink *sink, GstQuery *query,
				   gpointer data)
{
	struct run *run = data;
	GstStructure *config;
	GstVideoInfo info;
	GstCaps *caps;
	gboolean need_pool;

	gst_query_parse_allocation(query, &caps, &need_pool);
	if (!caps || !gst_video_info_from_caps(&info, caps))
		return FALSE;
	if (!run->pool) {
		run->allocator = g_object_new(heap_allocator_get_type(), NULL);
		gst_object_ref_sink(run->allocator);
		run->pool = gst_video_buffer_pool_new();
		config = gst_buffer_pool_get_config(run->pool);
		gst_buffer_pool_config_set_params(config, caps, info.size,
						  POOL_BUFS, POOL_BUFS);
		gst_buffer_pool_config_set_allocator(config, run->allocator,
						     NULL);
		gst_buffer_pool_config_add_option(config,
				GST_BUFFER_POOL_OPTION_VIDEO_META);
		if (!gst_buffer_pool_set_config(run->pool, config))
			return FALSE;
	}
	/* v4l2src configures the pool again, with the allocator offered. */
	gst_query_add_allocation_param(query, run->allocator, NULL);
	gst_query_add_allocation_pool(query, run->pool, info.size, POOL_BUFS,
				      POOL_BUFS);
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	return TRUE;
}

/* Watches the pages of @mem, mapped now, if it is new. */
static int watch(struct run *run, GstMemory *mem, const GstMapInfo *map)
{
	guint i;

	for (i = 0; i < run->nr_seen; i++)
		if (run->seen[i] == mem)
			return 0;
	if (run->nr_seen == POOL_BUFS)
		return -EEXIST;
	run->seen[run->nr_seen++] = mem;
	return cache_observer_watch(map->data, map->size);
}

/*
 * Checksums a frame, counts what it cost, and prints both. Runs on the main
 * thread: the observer learns the pages that this process's main thread
 * maps.
 */
static void frame(struct run *run, GstSample *sample)
{
	struct cache_counts counts = {};
	GstBuffer *buf = gst_sample_get_buffer(sample);
	GstMemory *mem = gst_buffer_peek_memory(buf, 0);
	guint64 sum = 0xcbf29ce484222325ull;	/* FNV-1a */
	gboolean counting = run->nr_seen == POOL_BUFS;
	GstMapInfo map;
	gsize i;
	int ret;

	if (gst_buffer_n_memory(buf) != 1 || !gst_is_dmabuf_memory(mem) ||
	    !gst_memory_map(mem, &map, GST_MAP_READ)) {
		fail(run, "a frame not in one mappable dmabuf", -EINVAL);
		return;
	}
	for (i = 0; i < map.size; i++)
		sum = (sum ^ map.data[i]) * 0x100000001b3ull;
	ret = counting ? 0 : watch(run, mem, &map);
	gst_memory_unmap(mem, &map);
	if (ret) {
		fail(run, "watching a buffer", ret);
		return;
	}
	/* Since the last frame: this frame's capture and the read above. */
	ret = cache_observer_take(&counts);
	if (ret) {
		fail(run, "counting", ret);
		return;
	}
	if (counting)
		g_print("frame %u sum %016" G_GINT64_MODIFIER "x cleaned %"
			G_GUINT64_FORMAT " invalidated %" G_GUINT64_FORMAT
			" syncs %" G_GUINT64_FORMAT " maps %" G_GUINT64_FORMAT
			"\n", run->frame++, sum, counts.cleaned,
			counts.invalidated, counts.syncs, counts.maps);
}

int main(int argc, char **argv)
{
	GstAppSinkCallbacks callbacks = {
		.propose_allocation = propose_allocation,
	};
	struct run run = {};
	GstElement *pipeline, *sink;
	GstMessage *msg;
	GstSample *sample;
	GError *err = NULL;
	gchar *launch;
	GstBus *bus;
	int ret;

	gst_init(&argc, &argv);
	if (argc != 3) {
		g_printerr("usage: %s DEVICE FRAMES\n", argv[0]);
		return 2;
	}
	/* vivid's text carries the time: no text, the same frames anywhere. */
	launch = g_strdup_printf("v4l2src device=%s io-mode=dmabuf-import "
				 "num-buffers=%u extra-controls=c,osd_text_mode=2 ! "
				 CAPS " ! appsink name=sink sync=false", argv[1],
				 (guint)atoi(argv[2]));
	pipeline = gst_parse_launch(launch, &err);
	g_free(launch);
	if (!pipeline) {
		g_printerr("%s\n", err->message);
		return 1;
	}
	ret = cache_observer_start();
	if (!ret)
		ret = cache_observer_maps("vivid*");
	if (ret) {
		g_printerr("the cache observer: %s\n", g_strerror(-ret));
		return 1;
	}

	sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, &run, NULL);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	while (!run.failed &&
	       (sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
						      30 * GST_SECOND))) {
		frame(&run, sample);
		gst_sample_unref(sample);
	}
	bus = gst_element_get_bus(pipeline);
	msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	gst_object_unref(bus);
	if (msg) {
		gst_message_parse_error(msg, &err, NULL);
		g_printerr("%s: %s\n", GST_OBJECT_NAME(msg->src), err->message);
		g_error_free(err);
		gst_message_unref(msg);
		run.failed = TRUE;
	} else if (!run.failed && !gst_app_sink_is_eos(GST_APP_SINK(sink))) {
		g_printerr("no frame for 30 s\n");
		run.failed = TRUE;
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);

	gst_object_unref(sink);
	gst_object_unref(pipeline);
	if (run.pool)
		gst_object_unref(run.pool);
	if (run.allocator)
		gst_object_unref(run.allocator);
	cache_observer_stop();
	if (!run.failed && !run.frame) {
		g_printerr("no frame counted: %u of the pool's %u buffers seen\n",
			   run.nr_seen, POOL_BUFS);
		run.failed = TRUE;
	}
	return run.failed ? 1 : 0;
}
