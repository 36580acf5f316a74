// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module, never submitted: N devices that take a dma-buf in turn,
 * so that user space can run the same pipeline on the base kernel and on
 * the series and count the CPU cache maintenance it costs.
 *
 * It builds against the base and the series. The devices are faux
 * devices with a 64-bit mask: not coherent on arm64, no bouncing. Control is
 * one debugfs file, /sys/kernel/debug/dmabuf_hops, taking these commands:
 *
 *   attach FD N   attach N devices to the dma-buf FD of the writer
 *   attach FD N device-only
 *                 the same, as importers that declare
 *                 DMA_BUF_ATTACH_DEVICE_ONLY (the series only; the base
 *                 answers EOPNOTSUPP)
 *   hop           each device in turn maps the buffer DMA_BIDIRECTIONAL
 *                 and unmaps it, as a device that reads and writes it
 *   map           each device maps the buffer DMA_BIDIRECTIONAL and keeps
 *                 it mapped, as a device that may write at any time
 *   unmap         undo "map"
 *   detach        detach them all
 */

#include <linux/debugfs.h>
#include <linux/device/faux.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define MAX_HOPS 8

static struct faux_device *hop_devs[MAX_HOPS];
static struct device_dma_parameters hop_dma_parms[MAX_HOPS];
static struct dma_buf_attachment *hop_attach[MAX_HOPS];
static struct sg_table *hop_sgt[MAX_HOPS];
static struct dma_buf *hop_buf;
static unsigned int nr_hops;
static DEFINE_MUTEX(hops_lock);
static struct dentry *hops_file;

static void hops_unmap(void)
{
	unsigned int i;

	for (i = 0; i < nr_hops; i++) {
		if (hop_sgt[i])
			dma_buf_unmap_attachment_unlocked(hop_attach[i],
							  hop_sgt[i],
							  DMA_BIDIRECTIONAL);
		hop_sgt[i] = NULL;
	}
}

static int hops_map(void)
{
	unsigned int i;

	for (i = 0; i < nr_hops; i++) {
		struct sg_table *sgt;

		if (hop_sgt[i])
			return -EBUSY;
		sgt = dma_buf_map_attachment_unlocked(hop_attach[i],
						      DMA_BIDIRECTIONAL);
		if (IS_ERR(sgt)) {
			hops_unmap();
			return PTR_ERR(sgt);
		}
		hop_sgt[i] = sgt;
	}

	return nr_hops ? 0 : -EINVAL;
}

static void hops_detach(void)
{
	hops_unmap();
	while (nr_hops)
		dma_buf_detach(hop_buf, hop_attach[--nr_hops]);
	if (hop_buf)
		dma_buf_put(hop_buf);
	hop_buf = NULL;
}

static struct dma_buf_attachment *hop_attach_one(struct device *dev,
						 bool device_only)
{
#ifdef DMA_BUF_ATTACH_DEVICE_ONLY
	return dma_buf_attach_with_flags(hop_buf, dev, NULL, NULL,
					 device_only ?
					 DMA_BUF_ATTACH_DEVICE_ONLY : 0);
#else
	return device_only ? ERR_PTR(-EOPNOTSUPP) : dma_buf_attach(hop_buf, dev);
#endif
}

static int hops_attach(int fd, unsigned int n, bool device_only)
{
	if (hop_buf || !n || n > MAX_HOPS)
		return -EINVAL;

	hop_buf = dma_buf_get(fd);
	if (IS_ERR(hop_buf)) {
		int ret = PTR_ERR(hop_buf);

		hop_buf = NULL;
		return ret;
	}

	for (nr_hops = 0; nr_hops < n; nr_hops++) {
		struct dma_buf_attachment *a;

		a = hop_attach_one(&hop_devs[nr_hops]->dev, device_only);
		if (IS_ERR(a)) {
			hops_detach();
			return PTR_ERR(a);
		}
		hop_attach[nr_hops] = a;
	}

	return 0;
}

static int hops_run(void)
{
	unsigned int i;

	for (i = 0; i < nr_hops; i++) {
		struct sg_table *sgt;

		if (hop_sgt[i])
			return -EBUSY;
		sgt = dma_buf_map_attachment_unlocked(hop_attach[i],
						      DMA_BIDIRECTIONAL);
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		dma_buf_unmap_attachment_unlocked(hop_attach[i], sgt,
						  DMA_BIDIRECTIONAL);
	}

	return nr_hops ? 0 : -EINVAL;
}

static ssize_t hops_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char cmd[40], flag[16] = "";
	unsigned int n;
	int fd, ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';

	mutex_lock(&hops_lock);
	if (sscanf(cmd, "attach %d %u %15s", &fd, &n, flag) >= 2) {
		if (!flag[0] || !strcmp(flag, "device-only"))
			ret = hops_attach(fd, n, flag[0]);
		else
			ret = -EINVAL;
	} else if (!strncmp(cmd, "hop", 3)) {
		ret = hops_run();
	} else if (!strncmp(cmd, "map", 3)) {
		ret = hops_map();
	} else if (!strncmp(cmd, "unmap", 5)) {
		hops_unmap();
		ret = 0;
	} else if (!strncmp(cmd, "detach", 6)) {
		hops_detach();
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&hops_lock);

	return ret ? ret : len;
}

static const struct file_operations hops_fops = {
	.owner = THIS_MODULE,
	.write = hops_write,
};

static void hops_remove_devices(void)
{
	unsigned int i;

	for (i = 0; i < MAX_HOPS; i++)
		faux_device_destroy(hop_devs[i]);
}

static int __init hops_init(void)
{
	unsigned int i;

	for (i = 0; i < MAX_HOPS; i++) {
		char name[24];
		struct device *dev;

		snprintf(name, sizeof(name), "dmabuf-hop%u", i);
		hop_devs[i] = faux_device_create(name, NULL, NULL);
		if (!hop_devs[i])
			goto fail;
		dev = &hop_devs[i]->dev;
		dev->dma_mask = &dev->coherent_dma_mask;
		if (dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)))
			goto fail;
		/* System heap segments reach 1 MiB; a CMA buffer is one. */
		dev->dma_parms = &hop_dma_parms[i];
		dma_set_max_seg_size(dev, UINT_MAX);
	}

	hops_file = debugfs_create_file("dmabuf_hops", 0200, NULL, NULL,
					&hops_fops);
	return 0;

fail:
	hops_remove_devices();
	return -ENODEV;
}

static void __exit hops_exit(void)
{
	debugfs_remove(hops_file);
	mutex_lock(&hops_lock);
	hops_detach();
	mutex_unlock(&hops_lock);
	hops_remove_devices();
}

module_init(hops_init);
module_exit(hops_exit);
MODULE_DESCRIPTION("Test-only dma-buf importer: N device hops");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("DMA_BUF");
