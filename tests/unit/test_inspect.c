/* The inspector's tree: layers, selectors, file names, --check matching,
 * the fatbinary parser and the nesting limit. */
#include <stdlib.h>

#include "harness.h"
#include "offlink/bundle.h"
#include "offlink/buf.h"
#include "offlink/fatbin.h"
#include "offlink/inspect.h"
#include "offlink/offload_binary.h"

static void add_bin(struct ofl_buf *b, const uint8_t *img, size_t len, const char *triple,
                    const char *arch)
{
	const char *k[] = {"triple", "arch"}, *v[] = {triple, arch};
	struct ofl_obin_image im = {OFL_IMG_OBJECT, OFL_OFK_HIP, 0, img, len, 2, k, v};
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_obin_write(&im, b, &err))
		abort();
}

/* A two-entry binary bundle: host (empty) and one device entry. */
static void add_bundle(struct ofl_buf *b, const char *dev_id, const char *dev)
{
	const char *ids[] = {"host-x86_64-unknown-linux-gnu-", dev_id};
	uint64_t sizes[] = {0, strlen(dev)}, offs[2];
	struct ofl_error err = OFL_ERROR_INIT;
	size_t start = b->len;
	if (ofl_bundle_write_header(ids, sizes, 2, 1, b, offs, &err))
		abort();
	if (ofl_buf_append_zeros(b, (size_t)(start + offs[1] - b->len)) ||
	    ofl_buf_append(b, dev, strlen(dev)))
		abort();
}

OFL_TEST(image_holding_a_bundle)
{
	struct ofl_buf bundle = OFL_BUF_INIT, file = OFL_BUF_INIT;
	add_bundle(&bundle, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "DEVICE");
	add_bin(&file, bundle.data, bundle.len, "amdgcn-amd-amdhsa", "gfx90a:xnack+");
	add_bin(&file, (const uint8_t *)"plain", 5, "x86_64-pc-linux-gnu", "generic");
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_inspect_build(file.data, file.len, "dir/f.bin", NULL, &root, &err), 0);
	CHECK_EQ_U(root->format, OFL_FMT_OFFLOAD);
	CHECK_EQ_U(root->nchildren, 2);
	const struct ofl_node *img = root->children[0];
	CHECK_EQ_U(img->kind, OFL_NODE_IMAGE);
	CHECK_EQ_U(img->format, OFL_FMT_BUNDLE);
	CHECK_STR(img->triple, "amdgcn-amd-amdhsa");
	CHECK_EQ_U(img->nchildren, 2);
	const struct ofl_node *dev = img->children[1];
	CHECK_MEM(dev->data, "DEVICE", 6);
	CHECK_EQ_U(dev->offset, (uint64_t)(dev->data - file.data));
	char *sel = ofl_node_path(dev);
	CHECK_STR(sel, "dir/f.bin[0]/hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
	CHECK(ofl_node_find(root, sel) == dev);
	CHECK(ofl_node_find(root, "dir/f.bin[1]") == root->children[1]);
	CHECK(ofl_node_find(root, "dir/f.bin[2]") == NULL);
	CHECK(ofl_node_find(root, "other[0]") == NULL);
	char *name = ofl_node_file_name(dev);
	CHECK_STR(name, "f.bin_0__hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.bin");
	free(name);
	name = ofl_node_file_name(root->children[1]);
	CHECK_STR(name, "f.bin_1_-x86_64-pc-linux-gnu-generic.o");
	free(name);
	free(sel);
	CHECK(ofl_node_is_code(dev) && !ofl_node_is_code(img));
	/* --check: feature rules, bare processors and architectures. */
	CHECK_EQ_U(ofl_node_match(dev, "amdgcn-amd-amdhsa--gfx90a:xnack+"), 2);
	CHECK_EQ_U(ofl_node_match(dev, "gfx90a:xnack+:sramecc-"), 1);
	CHECK_EQ_U(ofl_node_match(dev, "gfx90a:xnack-"), 0);
	CHECK_EQ_U(ofl_node_match(dev, "gfx90a"), 0);
	CHECK_EQ_U(ofl_node_match(dev, "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"), 2);
	CHECK_EQ_U(ofl_node_match(dev, "amdgcn"), 1);
	CHECK_EQ_U(ofl_node_match(dev, "x86_64"), 0);
	CHECK_EQ_U(ofl_node_match(root->children[1], "x86_64"), 2);
	CHECK_EQ_U(ofl_node_match(root->children[1], "x86_64-unknown-linux-gnu"), 2);
	CHECK_EQ_U(ofl_node_match(root->children[1], "sm_90"), 0);
	CHECK_EQ_U(ofl_node_match(root->children[1], "aarch64"), 0);
	ofl_node_free(root);
	ofl_buf_release(&bundle);
	ofl_buf_release(&file);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A fatbinary with a cubin entry for sm_80 and a compressed PTX one. */
static size_t make_fatbin(uint8_t *f)
{
	memset(f, 0, 256);
	put32(f, OFL_FATBIN_MAGIC);
	put16(f + 4, 1);
	put16(f + 6, 16);
	put64(f + 8, 64 + 8 + 64 + 16);
	uint8_t *e = f + 16;
	put16(e, OFL_FATBIN_ELF);
	put32(e + 4, 64);
	put64(e + 8, 8);
	put32(e + 28, 80);
	put64(e + 40, 0x11);
	memcpy(e + 64, "\177ELFcode", 8);
	e += 72;
	put16(e, OFL_FATBIN_PTX);
	put32(e + 4, 64);
	put64(e + 8, 16);
	put32(e + 28, 90);
	put64(e + 40, 0x2011);
	put64(e + 56, 400);
	return 16 + 72 + 80;
}

OFL_TEST(fatbin_entries)
{
	uint8_t f[256];
	size_t n = make_fatbin(f);
	struct ofl_fatbin fb;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_fatbin_parse(f, n, &fb, &err), 0);
	CHECK_EQ_U(fb.n, 2);
	CHECK_EQ_U(fb.size, n);
	CHECK_EQ_U(fb.entries[0].sm, 80);
	CHECK_EQ_U(fb.entries[0].payload_offset, 80);
	CHECK_EQ_U(fb.entries[1].kind, OFL_FATBIN_PTX);
	CHECK(fb.entries[1].flags & OFL_FATBIN_FLAG_COMPRESSED);
	CHECK_EQ_U(fb.entries[1].uncompressed_size, 400);
	ofl_fatbin_release(&fb);

	struct ofl_node *root;
	CHECK_EQ_U(ofl_inspect_build(f, n, "k.fatbin", NULL, &root, &err), 0);
	CHECK_EQ_U(root->nchildren, 2);
	CHECK_STR(root->children[0]->arch, "sm_80");
	CHECK_EQ_U(ofl_node_match(root->children[0], "sm_80"), 2);
	CHECK_EQ_U(ofl_node_match(root->children[0], "nvptx64-nvidia-cuda--sm_80"), 2);
	CHECK_EQ_U(ofl_node_match(root->children[1], "sm_80"), 0);
	char *name = ofl_node_file_name(root->children[1]);
	CHECK_STR(name, "k.fatbin_1_-nvptx64-nvidia-cuda-sm_90.ptx");
	free(name);
	ofl_node_free(root);

	/* Inside an OffloadBinary (what clang's CUDA images of kind fatbinary
	 * look like), the entries hang below the image. */
	struct ofl_buf ob = OFL_BUF_INIT;
	add_bin(&ob, f, n, "nvptx64-nvidia-cuda", "sm_80");
	CHECK_EQ_U(ofl_inspect_build(ob.data, ob.len, "cu.bin", NULL, &root, &err), 0);
	CHECK_EQ_U(root->children[0]->format, OFL_FMT_FATBIN);
	CHECK_EQ_U(root->children[0]->nchildren, 2);
	name = ofl_node_path(root->children[0]->children[1]);
	CHECK_STR(name, "cu.bin[0][1]");
	free(name);
	ofl_node_free(root);
	ofl_buf_release(&ob);

	/* An entry running past the fatbinary, and a header too short. */
	put64(f + 16 + 8, 1000);
	CHECK_EQ_U(ofl_fatbin_parse(f, n, &fb, &err), OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 24);
	ofl_error_clear(&err);
	CHECK_EQ_U(ofl_inspect_build(f, n, "k.fatbin", NULL, &root, &err), OFL_EFORMAT);
	CHECK_STR(err.path, "k.fatbin");
	CHECK_EQ_U(err.offset, 24);
	ofl_error_clear(&err);
	CHECK_EQ_U(ofl_fatbin_parse(f, 12, &fb, &err), OFL_EFORMAT);
}

OFL_TEST(nesting_limit)
{
	struct ofl_buf a = OFL_BUF_INIT, b = OFL_BUF_INIT;
	ofl_buf_append(&a, "x", 1);
	for (int i = 0; i < OFL_INSPECT_MAX_DEPTH + 1; i++) {
		ofl_buf_reset(&b);
		add_bin(&b, a.data, a.len, "t", "a");
		struct ofl_buf t = a;
		a = b;
		b = t;
	}
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_inspect_build(a.data, a.len, "deep", NULL, &root, &err), OFL_EFORMAT);
	CHECK(strstr(err.msg, "nested more than 16 deep") != NULL);
	CHECK_STR(err.path, "deep");
	ofl_error_clear(&err);
	/* One layer less is fine. */
	CHECK_EQ_U(ofl_inspect_build(b.data, b.len, "deep", NULL, &root, &err), 0);
	ofl_node_free(root);
	ofl_buf_release(&a);
	ofl_buf_release(&b);
}

OFL_TEST(unknown_bytes_and_chance_magic)
{
	uint8_t junk[100] = {0};
	memcpy(junk + 10, OFL_OBIN_MAGIC, 4);
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_inspect_build(junk, sizeof junk, "junk", NULL, &root, &err), 0);
	CHECK_EQ_U(root->nchildren, 0);
	CHECK_EQ_U(root->format, OFL_FMT_UNKNOWN);
	CHECK_STR(ofl_format_name(root->format), "data");
	ofl_node_free(root);
}
