/* Fuzzes the inspector's tree builder: every node's bytes lie inside the
 * input or inside bytes an ancestor inflated, every selector finds its node
 * again, and --check's matcher and the file namer accept every node; and
 * llvm-objdump's walk over archives and the bundles it writes out. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ofl_bfd.h"
#include "offlink/elf.h"
#include "offlink/inspect.h"

struct span {
	const uint8_t *data;
	size_t size;
};

static void check_node(const struct ofl_node *n, void *ctx)
{
	const struct span *in = ctx;
	if (!n->inflated && n->kind != OFL_NODE_FILE &&
	    (n->data < in->data || n->size > in->size ||
	     (size_t)(n->data - in->data) > in->size - n->size))
		abort();
	const struct ofl_node *root = n;
	while (root->parent)
		root = root->parent;
	char *sel = ofl_node_path(n), *name = ofl_node_file_name(n);
	/* Duplicate names may select an earlier twin; it must be as long. */
	const struct ofl_node *f = sel ? ofl_node_find(root, sel) : NULL;
	if (sel && (!f || f->kind != n->kind))
		abort();
	if (name && strchr(name, '/'))
		abort();
	free(sel);
	free(name);
	(void)ofl_node_match(n, "amdgcn-amd-amdhsa--gfx90a:xnack+");
	(void)ofl_node_match(n, "sm_90");
	(void)ofl_node_match(n, "x86_64");
}

/* An object llvm-objdump's walk reaches (the input or an archive member,
 * nested): its bytes lie inside the input, the name for extracted files
 * has no directory, and its bundle entries lie inside the input or inside
 * the inflated bytes of a compressed bundle. */
static int check_object(void *ctx, const struct ofl_objdump_object *o)
{
	const struct span *in = ctx;
	if (o->data < in->data || o->size > in->size ||
	    (size_t)(o->data - in->data) > in->size - o->size)
		abort();
	if (o->fname != o->name && strchr(o->fname, '/'))
		abort();
	struct ofl_objdump_bundles b;
	struct ofl_error err = OFL_ERROR_INIT;
	if (!ofl_is_elf(o->data, o->size) || ofl_objdump_bundles(o->data, o->size, &b, &err))
		return 0;
	for (size_t i = 0; i < b.n; i++) {
		const uint8_t *p = b.v[i].data;
		bool in_input = p >= o->data && p < o->data + o->size;
		if (in_input &&
		    (b.v[i].size > o->size || (size_t)(p - o->data) > o->size - b.v[i].size))
			abort();
		/* a CCOB's entries are in its inflated bytes: every byte is
		 * read, for the sanitizer to see */
		volatile uint8_t sum = 0;
		for (uint64_t k = 0; !in_input && k < b.v[i].size; k++)
			sum += p[k];
		(void)sum;
	}
	ofl_objdump_bundles_release(&b);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	struct span in = {data, size};
	for (unsigned flags = 0; flags <= OFL_INSPECT_TOLERANT; flags++) {
		ofl_error_clear(&err);
		struct ofl_inspect_opts o = {flags, ofl_bfd_read};
		if (ofl_inspect_build(data, size, "fuzz", &o, &root, &err) != 0)
			continue;
		ofl_node_walk(root, check_node, &in);
		ofl_node_free(root);
	}
	/* thin members would name files: not read here */
	ofl_error_clear(&err);
	(void)ofl_objdump_walk(data, size, "fuzz", false, check_object, &in, &err);
	return 0;
}
