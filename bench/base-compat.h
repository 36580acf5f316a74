/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test DMA engine needs from the series and v7.3 lacks, for
 * building the series' engine against v7.3 (see Kbuild): v7.3 has no
 * attachment flags, so its engine attaches as every importer does and
 * refuses DMA_BUF_ATTACH_DEVICE_ONLY, which the tests take as "not in
 * this kernel"; nor owners, which only device chains use.
 */
#include <linux/dma-buf.h>

#ifndef DMA_BUF_ATTACH_DEVICE_ONLY
#define DMA_BUF_ATTACH_DEVICE_ONLY	BIT(0)

static inline struct dma_buf_attachment *
dma_buf_attach_with_flags(struct dma_buf *dmabuf, struct device *dev,
			  const struct dma_buf_attach_ops *importer_ops,
			  void *importer_priv, unsigned int flags,
			  const void *owner)
{
	if (flags)
		return ERR_PTR(-EOPNOTSUPP);

	return dma_buf_dynamic_attach(dmabuf, dev, importer_ops, importer_priv);
}
#endif
