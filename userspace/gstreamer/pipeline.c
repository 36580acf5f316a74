// SPDX-License-Identifier: GPL-2.0
/*
 * The end-to-end run of the GStreamer patches. vivid's capture fills a pool
 * of CMA heap dmabufs that this program offers to v4l2src
 * (io-mode=dmabuf-import) through appsink, and this program, a CPU stage,
 * checksums every frame it gets. With GST_V4L2_DMABUF_DEVICE_CHAIN set, the
 * patched V4L2 plugin joins the device chain of each buffer it queues, and
 * this program's map ends it.
 *
 *   gst-chain-pipeline DEVICE FRAMES [overlay]
 *
 * With "overlay", a CPU stage sits between v4l2src and this program:
 * overlaycomposition blends a white square into every frame in place, so
 * it maps the buffer for writing before this program gets it, and no chain
 * may span it.
 *
 * The heap's dmabufs for the pool are made, filled with 0xa5 and shown to
 * the kselftests' cache observer (kprobes on arm64's arch_sync_dma_for_*())
 * before the pipeline starts, so every capture is counted; each is in one
 * buffer at most. vivid's text is off, so every frame is the same still
 * test pattern on any kernel, and a buffer read before vivid's write
 * reached it shows as 0xa5. (A moving pattern moves with vivid's clock,
 * not with the frames.) Prints a line a frame, and one for what follows
 * the last frame:
 *
 *   frame N sum S chains H spans P cleaned C invalidated I syncs Y maps M
 *   end chains H buffers B cleaned C invalidated I syncs Y maps M
 *
 * S is a checksum of the frame; H the device chains this process held
 * when the frame came, or once the pipeline has stopped (the program keeps
 * every memory past the pipeline, so only the V4L2 pool, at its stop or
 * when freed, can end their chains then); P 1 if one of them was on the
 * frame's buffer, still open when the frame came, and 0 if not; B the
 * dmabufs handed to the pool; C and I the bytes of those dmabufs the
 * kernel cleaned and invalidated since the previous line, Y the calls
 * that did it, and M the maps of them by vivid. Exits non-zero
 * on any error, if a frame is the fill, or if a mapping bounced.
 */
#include <dirent.h>
#include <fcntl.h>
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_observer.h"

/*
 * The program offers a pool of POOL_BUFS; v4l2src adds what its own queue
 * needs (gst_v4l2_object_decide_allocation()), so HEAP_BUFS are made.
 */
#define POOL_BUFS	4
#define HEAP_BUFS	16
#define WIDTH		640
#define HEIGHT		480
#define CAPS		"video/x-raw,format=RGB,width=640,height=480"
#define FRAME_SIZE	(WIDTH * HEIGHT * 3)

/*
 * The pool's dmabufs, made before the pipeline; each is in one live memory
 * at most, or two buffers would share it.
 */
static int heap_fds[HEAP_BUFS];
static gboolean heap_fd_used[HEAP_BUFS];
/* A reference to each memory handed out, dropped after the pipeline. */
static GstMemory *heap_mems[HEAP_BUFS];
static guint heap_fds_given;
G_LOCK_DEFINE_STATIC(heap_fds);

/* A dmabuf allocator that hands out heap_fds, which it never closes. */
typedef GstDmaBufAllocator HeapAllocator;
typedef GstDmaBufAllocatorClass HeapAllocatorClass;
G_DEFINE_TYPE(HeapAllocator, heap_allocator, GST_TYPE_DMABUF_ALLOCATOR)

/* A memory is freed: its dmabuf can be handed out again. */
static void heap_fd_release(gpointer data)
{
	G_LOCK(heap_fds);
	heap_fd_used[GPOINTER_TO_UINT(data)] = FALSE;
	G_UNLOCK(heap_fds);
}

static GstMemory *heap_alloc(GstAllocator *allocator, gsize size,
			     GstAllocationParams *params)
{
	GstMemory *mem;
	guint i;

	if (size > FRAME_SIZE) {
		g_printerr("a buffer of %" G_GSIZE_FORMAT " bytes asked for\n",
			   size);
		return NULL;
	}
	G_LOCK(heap_fds);
	for (i = 0; i < HEAP_BUFS && heap_fd_used[i]; i++)
		;
	if (i < HEAP_BUFS) {
		heap_fd_used[i] = TRUE;
		heap_fds_given++;
	}
	G_UNLOCK(heap_fds);
	if (i == HEAP_BUFS) {
		g_printerr("more than %d buffers asked for\n", HEAP_BUFS);
		return NULL;
	}
	mem = gst_fd_allocator_alloc(allocator, heap_fds[i], size,
				     GST_FD_MEMORY_FLAG_DONT_CLOSE);
	if (!mem) {
		heap_fd_release(GUINT_TO_POINTER(i));
		return NULL;
	}
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem),
				  g_quark_from_static_string("heap-fd"),
				  GUINT_TO_POINTER(i), heap_fd_release);
	/* Past the pool's end: only the V4L2 pool can end their chains. */
	heap_mems[i] = gst_memory_ref(mem);
	return mem;
}

static void heap_allocator_class_init(HeapAllocatorClass *klass)
{
	GST_ALLOCATOR_CLASS(klass)->alloc = heap_alloc;
}

static void heap_allocator_init(HeapAllocator *self)
{
}

/*
 * A frame-sized dmabuf from the CMA heap, which any V4L2 driver can import,
 * under one of the names kernels give it; filled with 0xa5 and watched by
 * the observer. Returns its fd, or a negative errno.
 */
static int heap_buffer(void)
{
	static const char *const names[] = {
		"default_cma_region", "linux,cma", "reserved",
	};
	struct dma_heap_allocation_data data = {
		.len = FRAME_SIZE,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE,
	};
	char path[64];
	void *map;
	guint i;
	int heap, ret = -ENOENT;

	for (i = 0; i < G_N_ELEMENTS(names) && ret; i++) {
		g_snprintf(path, sizeof(path), "/dev/dma_heap/%s", names[i]);
		heap = open(path, O_RDONLY | O_CLOEXEC);
		if (heap < 0)
			continue;
		ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data) ? -errno : 0;
		close(heap);
	}
	if (ret)
		return ret;

	map = mmap(NULL, FRAME_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   data.fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(data.fd);
		return ret;
	}
	ret = ioctl(data.fd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
	if (!ret) {
		memset(map, 0xa5, FRAME_SIZE);
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
		ret = ioctl(data.fd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
	}
	if (!ret)
		ret = cache_observer_watch(map, FRAME_SIZE);
	munmap(map, FRAME_SIZE);
	if (ret) {
		close(data.fd);
		return ret;
	}
	return data.fd;
}

/*
 * The device chains this process holds open; *@spans is set if one of them
 * is on the dmabuf of inode @ino.
 */
static guint open_chains(ino_t ino, gboolean *spans)
{
	char path[64], target[64], line[64];
	unsigned long long chain_ino;
	struct dirent *d;
	guint n = 0;
	ssize_t len;
	FILE *info;
	DIR *dir;

	*spans = FALSE;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		g_snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:dmabuf-chain"))
			continue;
		n++;
		g_snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", d->d_name);
		info = fopen(path, "re");
		if (!info)
			continue;
		while (fgets(line, sizeof(line), info))
			if (sscanf(line, "dmabuf_ino: %llu", &chain_ino) == 1 &&
			    chain_ino == ino)
				*spans = TRUE;
		fclose(info);
	}
	closedir(dir);
	return n;
}

struct run {
	GstAllocator *allocator;
	GstBufferPool *pool;
	guint frame;
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
	if (!caps || !gst_video_info_from_caps(&info, caps) ||
	    info.size > FRAME_SIZE)
		return FALSE;
	if (!run->pool) {
		GstBufferPool *pool = gst_video_buffer_pool_new();

		config = gst_buffer_pool_get_config(pool);
		gst_buffer_pool_config_set_params(config, caps, info.size,
						  POOL_BUFS, POOL_BUFS);
		gst_buffer_pool_config_set_allocator(config, run->allocator,
						     NULL);
		gst_buffer_pool_config_add_option(config,
				GST_BUFFER_POOL_OPTION_VIDEO_META);
		if (!gst_buffer_pool_set_config(pool, config)) {
			gst_object_unref(pool);
			return FALSE;
		}
		run->pool = pool;
	}
	/* v4l2src configures the pool again, with the allocator offered. */
	gst_query_add_allocation_param(query, run->allocator, NULL);
	gst_query_add_allocation_pool(query, run->pool, info.size, POOL_BUFS,
				      POOL_BUFS);
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	return TRUE;
}

static void print_counts(const struct cache_counts *c)
{
	g_print("cleaned %" G_GUINT64_FORMAT " invalidated %" G_GUINT64_FORMAT
		" syncs %" G_GUINT64_FORMAT " maps %" G_GUINT64_FORMAT "\n",
		c->cleaned, c->invalidated, c->syncs, c->maps);
}

/* Checksums a frame, counts what it cost, and prints both. */
static void frame(struct run *run, GstSample *sample)
{
	struct cache_counts counts = {};
	GstBuffer *buf = gst_sample_get_buffer(sample);
	GstMemory *mem = gst_buffer_peek_memory(buf, 0);
	guint64 sum = 0xcbf29ce484222325ull;	/* FNV-1a */
	gboolean spans;
	GstMapInfo map;
	struct stat st;
	guint chains;
	gsize i;
	int ret;

	if (gst_buffer_n_memory(buf) != 1 || !gst_is_dmabuf_memory(mem) ||
	    fstat(gst_dmabuf_memory_get_fd(mem), &st)) {
		fail(run, "a frame not in one dmabuf", -EINVAL);
		return;
	}
	/* Before the map below ends it. */
	chains = open_chains(st.st_ino, &spans);
	if (!gst_memory_map(mem, &map, GST_MAP_READ)) {
		fail(run, "a frame that cannot be mapped", -EINVAL);
		return;
	}
	for (i = 0; i < map.size; i++)
		sum = (sum ^ map.data[i]) * 0x100000001b3ull;
	/* vivid never writes a whole frame of 0xa5. */
	for (i = 0; i < map.size && map.data[i] == 0xa5; i++)
		;
	gst_memory_unmap(mem, &map);
	if (i == map.size) {
		fail(run, "a frame still holds the fill, not vivid's frame",
		     -EINVAL);
		return;
	}
	/* Since the last frame: this frame's capture and the read above. */
	ret = cache_observer_take(&counts);
	if (ret) {
		fail(run, "counting", ret);
		return;
	}
	g_print("frame %u sum %016" G_GINT64_MODIFIER "x chains %u spans %d ",
		run->frame++, sum, chains, spans);
	print_counts(&counts);
}

/* overlaycomposition's draw: a white square at (16, 16), every frame. */
static GstVideoOverlayComposition *draw(GstElement *overlay,
					GstSample *sample, gpointer data)
{
	return gst_video_overlay_composition_ref(data);
}

static GstVideoOverlayComposition *white_square(void)
{
	GstVideoOverlayComposition *composition;
	GstVideoOverlayRectangle *rect;
	GstBuffer *pixels;

	pixels = gst_buffer_new_allocate(NULL, 64 * 64 * 4, NULL);
	gst_buffer_memset(pixels, 0, 0xff, 64 * 64 * 4);
	gst_buffer_add_video_meta(pixels, GST_VIDEO_FRAME_FLAG_NONE,
				  GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB,
				  64, 64);
	rect = gst_video_overlay_rectangle_new_raw(pixels, 16, 16, 64, 64,
					GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
	composition = gst_video_overlay_composition_new(rect);
	gst_video_overlay_rectangle_unref(rect);
	gst_buffer_unref(pixels);
	return composition;
}

/*
 * Runs the pipeline on @device for @frames frames, with overlaycomposition
 * in the middle if @overlay.
 */
static void stream(struct run *run, const char *device, guint frames,
		   gboolean overlay)
{
	GstAppSinkCallbacks callbacks = {
		.propose_allocation = propose_allocation,
	};
	struct cache_counts counts = {};
	GstVideoOverlayComposition *square = NULL;
	GstElement *pipeline, *sink, *middle;
	gboolean spans;
	GstMessage *msg;
	GstSample *sample;
	GError *err = NULL;
	gchar *launch;
	GstBus *bus;
	int ret;

	/* No text: vivid's carries the time. */
	launch = g_strdup_printf("v4l2src device=%s io-mode=dmabuf-import "
				 "num-buffers=%u extra-controls=c,osd_text_mode=2 ! " CAPS
				 " ! %sappsink name=sink sync=false", device, frames,
				 overlay ? "overlaycomposition name=middle ! " : "");
	pipeline = gst_parse_launch(launch, &err);
	g_free(launch);
	if (err) {
		g_printerr("%s\n", err->message);
		g_error_free(err);
		if (pipeline)
			gst_object_unref(pipeline);
		run->failed = TRUE;
		return;
	}

	middle = gst_bin_get_by_name(GST_BIN(pipeline), "middle");
	if (middle) {
		square = white_square();
		g_signal_connect(middle, "draw", G_CALLBACK(draw), square);
		gst_object_unref(middle);
	}
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, run, NULL);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	while (!run->failed &&
	       (sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
						      30 * GST_SECOND))) {
		frame(run, sample);
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
		run->failed = TRUE;
	} else if (!run->failed && !gst_app_sink_is_eos(GST_APP_SINK(sink))) {
		g_printerr("no frame for 30 s\n");
		run->failed = TRUE;
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	if (square)
		gst_video_overlay_composition_unref(square);

	/* What the pipeline did after the last frame, the pool's end included. */
	ret = cache_observer_take(&counts);
	if (ret) {
		fail(run, "counting", ret);
		return;
	}
	G_LOCK(heap_fds);
	g_print("end chains %u buffers %u ", open_chains(0, &spans),
		heap_fds_given);
	G_UNLOCK(heap_fds);
	print_counts(&counts);
}

int main(int argc, char **argv)
{
	struct run run = {};
	char *end;
	guint i;
	long frames;
	int ret;

	/* A line a frame, as it comes, even into a file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	gst_init(&argc, &argv);
	frames = argc >= 3 ? strtol(argv[2], &end, 10) : 0;
	if (argc < 3 || argc > 4 || *end || frames < 1 || frames > 1000 ||
	    (argc == 4 && strcmp(argv[3], "overlay"))) {
		g_printerr("usage: %s DEVICE FRAMES (1 to 1000) [overlay]\n",
			   argv[0]);
		return 2;
	}

	ret = cache_observer_start();
	if (!ret)
		ret = cache_observer_maps("vivid*");
	for (i = 0; i < HEAP_BUFS && !ret; i++) {
		heap_fds[i] = heap_buffer();
		ret = heap_fds[i] < 0 ? heap_fds[i] : 0;
	}
	if (ret) {
		g_printerr("the pool's buffers and their observer: %s\n",
			   g_strerror(-ret));
		cache_observer_stop();
		return 1;
	}

	run.allocator = g_object_new(heap_allocator_get_type(), NULL);
	gst_object_ref_sink(run.allocator);
	stream(&run, argv[1], frames, argc == 4);
	if (cache_observer_bounced()) {
		g_printerr("a mapping bounced: %s\n", cache_observer_bounced());
		run.failed = TRUE;
	}
	cache_observer_stop();

	if (run.pool)
		gst_object_unref(run.pool);
	for (i = 0; i < HEAP_BUFS; i++) {
		if (heap_mems[i])
			gst_memory_unref(heap_mems[i]);
	}
	gst_object_unref(run.allocator);
	for (i = 0; i < HEAP_BUFS; i++)
		close(heap_fds[i]);
	if (!run.failed && run.frame != frames) {
		g_printerr("%u frames of %ld\n", run.frame, frames);
		run.failed = TRUE;
	}
	return run.failed ? 1 : 0;
}
