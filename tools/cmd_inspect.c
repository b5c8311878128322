/* offlink inspect: the layers inside a file (core/inspect.c builds the
 * tree) printed as a tree, as JSON, or as llvm-objdump --offloading prints
 * them; extraction of any layer; --check for the image a target would get. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "ofl_bfd.h"
#include "offlink/archive.h"
#include "offlink/fatbin.h"
#include "offlink/format.h"
#include "offlink/image_compat.h"
#include "offlink/elf.h"
#include "offlink/target_id.h"
#include "offlink/inspect.h"
#include "offlink/io.h"
#include "offlink/offload_binary.h"
#include "offlink/packager.h"
#include "opts.h"
#include "staging.h"

enum fmt { FMT_TREE, FMT_JSON, FMT_OBJDUMP };

struct insp {
	enum fmt fmt;
	enum ofl_llvm_version llvm;
	int nfiles_done;
	const char *extract, *output, *extract_all, *check;
	const char *gpu;  /* --gpu: which images load there */
	unsigned runtime; /* --runtime: LLVM's offload runtime release */
	bool tolerant;
	const char *current; /* the file being inspected; never written over */
};

static const char *const compression_names[] = {"none", "zlib", "zstd"};

/* ---- llvm-objdump --offloading ------------------------------------------ */

static int objdump_error(const char *path, bool walking, enum ofl_obin_llvm_diag d,
                         const struct ofl_error *err)
{
	return error("'%s': %s%s", path, walking ? "while extracting offloading files: " : "",
	             ofl_obin_llvm_diag_text(d, err));
}

static int objdump_other(const struct insp *in, const char *path, const char *fname,
                         const uint8_t *d, size_t n);

static int bundles_error(const char *path, const struct ofl_error *err)
{
	fflush(stdout);
	if (!strcmp(err->msg, OFL_OBJDUMP_SHORT_STREAM))
		return error("'%s': while extracting offload FatBin bundles: %s", path, err->msg);
	return error("'%s': while extracting offload FatBin bundles: %s at offset %llu", path,
	             err->msg, (unsigned long long)err->offset);
}

/* llvm-objdump 22 writes the entries of bundles in sections to files named
 * after the object (the member name inside an archive); releases b. */
static int write_bundles(const char *fname, struct ofl_objdump_bundles *b)
{
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = 0;
	for (size_t i = 0; i < b->n && !rc; i++) {
		char *name = NULL;
		/* The ID comes from the input: it names no directory. */
		ofl_name_flatten(b->v[i].id);
		if (asprintf(&name, "%s.%zu.%s", fname, b->v[i].bundle, b->v[i].id) < 0)
			name = NULL;
		if (!name || ofl_write_file(name, b->v[i].data, (size_t)b->v[i].size, &err))
			rc = name ? error_lib(&err) : error("out of memory");
		else
			printf("Extracting offload bundle: %s\n", name);
		free(name);
	}
	ofl_objdump_bundles_release(b);
	return rc;
}

static int objdump_bundles(const char *path, const char *fname, const uint8_t *d, size_t n)
{
	struct ofl_objdump_bundles b;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_objdump_bundles(d, n, &b, &err))
		return bundles_error(path, &err);
	return write_bundles(fname, &b);
}

/* One image as llvm-objdump of release in->llvm prints it: 23 adds its
 * size and, for an image that is an OffloadBinary itself, its images, one
 * level deeper each (numbered <outer>.<i>); a nested binary that does not
 * read is a warning naming the file that holds it (its own name for the
 * outermost, LLVM's "inner-offload-binary" further in). */
static void objdump_binary(const struct insp *in, const struct ofl_obin *b, const char *file,
                           const char *prefix, size_t idx, unsigned level)
{
	const char *arch = ofl_obin_get(b, "arch"), *triple = ofl_obin_get(b, "triple");
	int ind = 2 * (int)level;
	printf("\n%*sOFFLOADING IMAGE [%s%zu]:\n", ind, "", prefix, idx);
	printf("%*s%-16s%s\n%*s%-16s%s\n%*s%-16s%s\n%*s%-16s%s\n", ind, "", "kind",
	       ofl_image_kind_objdump_name(b->image_kind, in->llvm), ind, "", "arch",
	       arch ? arch : "", ind, "", "triple", triple ? triple : "", ind, "", "producer",
	       ofl_offload_kind_name(b->offload_kind, in->llvm));
	if (in->llvm < OFL_LLVM_23)
		return;
	printf("%*s%-16s%llu bytes\n", ind, "", "image size", (unsigned long long)b->image_size);
	if (!ofl_obin_is(b->image, (size_t)b->image_size))
		return;
	struct ofl_pkg_inputs inner;
	struct ofl_error err = OFL_ERROR_INIT;
	enum ofl_obin_llvm_diag diag = OFL_OBIN_INVALID_DATA;
	if (level >= OFL_MAX_NESTING || ofl_pkg_collect(b->image, (size_t)b->image_size, file,
	                                                OFL_PKG_V2, &inner, &diag, &err)) {
		fflush(stdout);
		warning("'%s': failed to extract nested OffloadBinary: %s", file,
		        level >= OFL_MAX_NESTING ? "nested too deep"
		                                 : ofl_obin_llvm_diag_text(diag, &err));
		return;
	}
	printf("%*s%-16s%zu\n", ind, "", "nested images", inner.n);
	char *sub = NULL;
	if (asprintf(&sub, "%s%zu.", prefix, idx) < 0)
		sub = NULL;
	for (size_t i = 0; sub && i < inner.n; i++)
		objdump_binary(in, &inner.v[i].bin, "inner-offload-binary", sub, i, level + 1);
	free(sub);
	ofl_pkg_inputs_release(&inner);
}

/* One object of the walk (ofl_objdump_walk): archives are opened there. */
static int objdump_object(void *ctx, const struct ofl_objdump_object *o)
{
	const struct insp *in = ctx;
	const char *path = o->name, *fname = o->fname;
	const uint8_t *d = o->data;
	size_t n = o->size;
	enum ofl_format f = ofl_format_of(d, n);
	if (f == OFL_FMT_ARCHIVE) /* llvm-objdump opens no archive in an archive */
		return error("'%s': The file was not recognized as a valid object file",
		             o->archive);
	bool elf = f == OFL_FMT_ELF, raw = f == OFL_FMT_OFFLOAD;
	struct ofl_error err = OFL_ERROR_INIT;
	unsigned flags = in->llvm >= OFL_LLVM_23 ? OFL_PKG_V2 : 0;
	if (!elf && !raw)
		return objdump_other(in, path, fname, d, n);
	/* LLVM opens the object first: what its reader refuses is said before
	 * anything is printed, a member named lib.a(m.o) without quotes */
	if (elf && ofl_elf_llvm_check(d, n, &err))
		return o->archive ? error("%s: %s", path, err.msg)
		                  : error("'%s': %s", path, err.msg);
	if (raw) {
		/* The first binary is parsed on opening the file, so its errors
		 * carry no "while extracting" context. */
		struct ofl_obin_set first;
		if (ofl_obin_parse_set(d, n, &first, &err) == 0 &&
		    first.version > ofl_obin_max_version(in->llvm))
			err.code = OFL_EFORMAT;
		if (err.code)
			return objdump_error(path, false, ofl_obin_llvm_diag(d, n, in->llvm), &err);
		ofl_obin_set_release(&first);
	} else {
		printf("\n%s:\tfile format %s\n", path, ofl_elf_format_name(d));
	}
	struct ofl_pkg_inputs all;
	enum ofl_obin_llvm_diag diag = OFL_OBIN_INVALID_DATA;
	/* errors past the opening name the object by LLVM's file name: a
	 * member's own */
	if (ofl_pkg_collect(d, n, o->file, flags, &all, &diag, &err)) {
		fflush(stdout);
		return objdump_error(o->file, true, diag, &err);
	}
	for (size_t i = 0; i < all.n; i++)
		objdump_binary(in, &all.v[i].bin, o->file, "", i, 0);
	ofl_pkg_inputs_release(&all);
	return elf && in->llvm >= OFL_LLVM_22 ? objdump_bundles(path, fname, d, n) : 0;
}

static int inspect_objdump(const struct insp *in, const char *path, const uint8_t *d, size_t n)
{
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_objdump_walk(d, n, path, true, objdump_object, (void *)in, &err);
	return rc < 0 ? error_lib(&err) : rc;
}

static void objdump_image(const struct insp *in, const struct ofl_node *n, size_t *k)
{
	if (n->kind != OFL_NODE_IMAGE || n->parent->kind != OFL_NODE_SECTION)
		return;
	const char *arch = NULL, *triple = NULL;
	for (size_t j = 0; j < n->nstrings; j++) {
		if (!strcmp(n->strings[j].key, "arch"))
			arch = n->strings[j].value;
		if (!strcmp(n->strings[j].key, "triple"))
			triple = n->strings[j].value;
	}
	printf("\nOFFLOADING IMAGE [%zu]:\n%-16s%s\n%-16s%s\n%-16s%s\n%-16s%s\n", (*k)++, "kind",
	       ofl_image_kind_objdump_name(n->image_kind, in->llvm), "arch", arch ? arch : "",
	       "triple", triple ? triple : "", "producer",
	       ofl_offload_kind_name(n->offload_kind, in->llvm));
	if (in->llvm >= OFL_LLVM_23)
		printf("%-16s%llu bytes\n", "image size", (unsigned long long)n->size);
}

/* llvm-objdump's lower-cased Mach-O format names, or NULL for no Mach-O
 * object (universal files included: llvm-objdump takes their slices). */
static const char *macho_format_name(const uint8_t *d, size_t n)
{
	static const struct {
		uint32_t magic, cpu;
		const char *name;
	} names[] = {
	    {0xfeedfacf, 0x01000007, "mach-o 64-bit x86-64"},
	    {0xfeedfacf, 0x0100000c, "mach-o arm64"},
	    {0xfeedfacf, 0x01000012, "mach-o 64-bit ppc64"},
	    {0xfeedface, 7, "mach-o 32-bit i386"},
	    {0xfeedface, 12, "mach-o arm"},
	    {0xfeedface, 18, "mach-o 32-bit ppc"},
	    {0xfeedface, 0x0200000c, "mach-o arm64 (ilp32)"},
	};
	if (n < 28)
		return NULL;
	uint32_t magic =
	    (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
	uint32_t cpu =
	    (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
	if (magic != 0xfeedfacf && magic != 0xfeedface)
		return NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].magic == magic && names[i].cpu == cpu)
			return names[i].name;
	return magic == 0xfeedfacf ? "mach-o 64-bit unknown" : "mach-o 32-bit unknown";
}

/* A COFF object's bundles, found in its sections as in an ELF one's. */
static int coff_bundles(const char *path, const char *fname, const uint8_t *d, size_t n,
                        const struct ofl_node *root)
{
	struct ofl_objdump_bundles b = OFL_OBJDUMP_BUNDLES_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	for (size_t i = 0; i < root->nchildren; i++) {
		const struct ofl_node *s = root->children[i];
		if (s->kind == OFL_NODE_SECTION && !s->inflated &&
		    ofl_objdump_section_bundles(d, n, s->offset, s->size, &b, &err)) {
			ofl_objdump_bundles_release(&b);
			return bundles_error(path, &err);
		}
	}
	return write_bundles(fname, &b);
}

/* COFF objects (read by libbfd), named as llvm-objdump names them; Mach-O
 * ones get llvm-objdump's warning. */
static int objdump_other(const struct insp *in, const char *path, const char *fname,
                         const uint8_t *d, size_t n)
{
	static const char *const names[][2] = {{"pe-x86-64", "coff-x86-64"},
	                                       {"pe-i386", "coff-i386"},
	                                       {"pe-aarch64-little", "coff-arm64"},
	                                       {"pe-bigobj-x86-64", "COFF-x86-64"}};
	const char *macho = macho_format_name(d, n);
	if (macho) {
		printf("\n%s:\tfile format %s\n", path, macho);
		fflush(stdout);
		warning("'%s': --offloading is currently only supported for COFF and ELF targets",
		        path);
		return 0;
	}
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_inspect_opts o = {0, ofl_bfd_read};
	if (ofl_inspect_build(d, n, path, &o, &root, &err) == 0 && root->format == OFL_FMT_COFF) {
		const char *fmt = root->format_name;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (!strcmp(fmt, names[i][0]))
				fmt = names[i][1];
		printf("\n%s:\tfile format %s\n", path, fmt);
		size_t k = 0;
		for (size_t i = 0; i < root->nchildren; i++)
			for (size_t j = 0; j < root->children[i]->nchildren; j++)
				objdump_image(in, root->children[i]->children[j], &k);
		int rc = in->llvm >= OFL_LLVM_22 ? coff_bundles(path, fname, d, n, root) : 0;
		ofl_node_free(root);
		return rc;
	}
	if (err.code == 0)
		ofl_node_free(root);
	return error("'%s': The file was not recognized as a valid object file", path);
}

/* ---- shared helpers ------------------------------------------------------ */

static void json_str(const char *s, size_t n)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (!ofl_buf_append_json(&b, s, n))
		fwrite(b.data, 1, b.len, stdout);
	ofl_buf_release(&b);
}

static void json_cstr(const char *s)
{
	if (s)
		json_str(s, strlen(s));
	else
		printf("null");
}

static const char *node_format(const struct ofl_node *n)
{
	return n->format_name ? n->format_name : ofl_format_name(n->format);
}

static char *segment(const struct ofl_node *n)
{
	char *full = ofl_node_path(n), *par = n->parent ? ofl_node_path(n->parent) : NULL;
	if (!full || (n->parent && !par)) {
		free(full);
		free(par);
		return NULL;
	}
	size_t skip = par ? strlen(par) : 0;
	memmove(full, full + skip, strlen(full + skip) + 1);
	free(par);
	return full;
}

static const char *fatbin_kind_name(uint16_t k)
{
	return k == 1 ? "ptx" : k == 2 ? "cubin" : "unknown";
}

/* ---- tree ---------------------------------------------------------------- */

static void tree_image(const struct insp *in, const struct ofl_node *n)
{
	printf("image %s, producer %s, %llu bytes at %#llx%s; OffloadBinary v%u at %#llx, %llu "
	       "bytes",
	       ofl_image_kind_objdump_name(n->image_kind, in->llvm),
	       ofl_offload_kind_name(n->offload_kind, in->llvm), (unsigned long long)n->size,
	       (unsigned long long)n->offset, n->inflated ? " (inflated)" : "", n->version,
	       (unsigned long long)n->binary_offset, (unsigned long long)n->binary_size);
	if (n->compression)
		printf(", %s, %llu bytes inflated (ratio %.2f)", compression_names[n->compression],
		       (unsigned long long)n->inflated_size,
		       (double)n->inflated_size / (double)n->binary_size);
}

static void tree_node(const struct insp *in, const struct ofl_node *n, int depth)
{
	char *seg = segment(n);
	printf("%*s%s: ", 2 * depth, "", seg ? seg : "?");
	free(seg);
	switch (n->kind) {
	case OFL_NODE_IMAGE:
		tree_image(in, n);
		break;
	case OFL_NODE_FATBIN_ENTRY:
		printf("%s %s, %llu bytes at %#llx", fatbin_kind_name(n->fatbin_kind), n->arch,
		       (unsigned long long)n->size, (unsigned long long)n->offset);
		if (n->fatbin_flags & OFL_FATBIN_FLAG_COMPRESSED)
			printf(", compressed, %llu bytes inflated",
			       (unsigned long long)n->inflated_size);
		break;
	default:
		printf("%s%s%s%llu bytes", n->kind == OFL_NODE_BUNDLE_ENTRY ? "bundle entry, " : "",
		       node_format(n), *node_format(n) ? ", " : "", (unsigned long long)n->size);
		if (n->parent)
			printf(" at %#llx%s", (unsigned long long)n->offset,
			       n->inflated ? " (inflated)" : "");
	}
	if (n->kind == OFL_NODE_IMAGE && n->format)
		printf(", holds %s", node_format(n));
	if (n->format == OFL_FMT_CCOB)
		printf(", %s, %llu bytes inflated (ratio %.2f)", compression_names[n->compression],
		       (unsigned long long)n->inflated_size,
		       (double)n->inflated_size / (double)(n->size ? n->size : 1));
	putchar('\n');
	for (size_t j = 0; j < n->nstrings; j++) {
		printf("%*s  %s = ", 2 * depth, "", n->strings[j].key);
		json_str(n->strings[j].value, (size_t)n->strings[j].value_size);
		putchar('\n');
	}
	for (size_t i = 0; i < n->nchildren; i++)
		tree_node(in, n->children[i], depth + 1);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_node(const struct insp *in, const struct ofl_node *n, int depth)
{
	char *sel = ofl_node_path(n);
	printf("%*s{\"selector\": ", 2 * depth, "");
	json_cstr(sel);
	free(sel);
	printf(", \"kind\": \"%s\", \"format\": ", ofl_node_kind_name(n->kind));
	json_cstr(node_format(n));
	printf(", \"offset\": %llu, \"size\": %llu, \"inflated\": %s",
	       (unsigned long long)n->offset, (unsigned long long)n->size,
	       n->inflated ? "true" : "false");
	if (n->name && n->kind != OFL_NODE_FILE) {
		printf(", \"name\": ");
		json_cstr(n->name);
	}
	if (n->triple || n->arch) {
		printf(", \"triple\": ");
		json_cstr(n->triple);
		printf(", \"arch\": ");
		json_cstr(n->arch);
	}
	if (n->kind == OFL_NODE_IMAGE) {
		printf(",\n%*s \"version\": %u, \"binary_offset\": %llu, \"binary_size\": %llu, "
		       "\"compression\": \"%s\", \"inflated_size\": %llu, \"image_kind\": %u, "
		       "\"image_kind_name\": \"%s\", \"offload_kind\": %u, \"producer\": \"%s\", "
		       "\"flags\": %u, \"strings\": {",
		       2 * depth, "", n->version, (unsigned long long)n->binary_offset,
		       (unsigned long long)n->binary_size, compression_names[n->compression],
		       (unsigned long long)n->inflated_size, n->image_kind,
		       ofl_image_kind_objdump_name(n->image_kind, in->llvm), n->offload_kind,
		       ofl_offload_kind_name(n->offload_kind, in->llvm), n->flags);
		for (size_t j = 0; j < n->nstrings; j++) {
			printf("%s", j ? ", " : "");
			json_cstr(n->strings[j].key);
			printf(": ");
			json_str(n->strings[j].value, (size_t)n->strings[j].value_size);
		}
		printf("}");
	}
	if (n->kind == OFL_NODE_FATBIN_ENTRY)
		printf(", \"fatbin_kind\": \"%s\", \"sm\": %u, \"fatbin_flags\": %llu, "
		       "\"compressed\": %s, \"inflated_size\": %llu",
		       fatbin_kind_name(n->fatbin_kind), n->sm, (unsigned long long)n->fatbin_flags,
		       (n->fatbin_flags & OFL_FATBIN_FLAG_COMPRESSED) ? "true" : "false",
		       (unsigned long long)n->inflated_size);
	if (n->format == OFL_FMT_CCOB)
		printf(", \"compression\": \"%s\", \"inflated_size\": %llu",
		       compression_names[n->compression], (unsigned long long)n->inflated_size);
	printf(", \"children\": [");
	for (size_t i = 0; i < n->nchildren; i++) {
		printf("%s\n", i ? "," : "");
		json_node(in, n->children[i], depth + 1);
	}
	printf("%s]}", n->nchildren ? "\n" : "");
}

/* ---- extraction and --check ------------------------------------------------ */

/* Writes now when set is NULL, else stages the output in set. */
static int write_node(const struct insp *in, const struct ofl_node *n, const char *out,
                      struct ofl_outset *set)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (in->current && ofl_same_file(out, in->current))
		return error("%s: output file is also an input", out);
	if (ofl_outset_write_file(set, out, n->data, (size_t)n->size, &err))
		return error_lib(&err);
	return 0;
}

static int extract_one(const struct insp *in, const struct ofl_node *root)
{
	const struct ofl_node *n = ofl_node_find(root, in->extract);
	if (!n)
		return -1;
	char *name = in->output ? NULL : ofl_node_file_name(n);
	int rc = write_node(in, n, in->output ? in->output : name ? name : "-", NULL);
	free(name);
	return rc;
}

struct collect {
	const struct ofl_node **v;
	size_t n;
	bool leaves;
};

static void collect_code(const struct ofl_node *n, void *ctx)
{
	struct collect *c = ctx;
	bool want = c->leaves ? ofl_node_is_code(n)
	                      : n->kind == OFL_NODE_IMAGE || n->kind == OFL_NODE_BUNDLE_ENTRY ||
	                            n->kind == OFL_NODE_FATBIN_ENTRY;
	if (!want)
		return;
	const struct ofl_node **v = realloc(c->v, (c->n + 1) * sizeof *v);
	if (!v)
		return;
	c->v = v;
	c->v[c->n++] = n;
}

static int extract_all(const struct insp *in, const struct ofl_node *root)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_mkdirs(in->extract_all, 0777, &err))
		return error("cannot create '%s': %s", err.path, strerror(err.sys_errno));
	struct collect c = {NULL, 0, false};
	ofl_node_walk(root, collect_code, &c);
	/* every file or none; the names are printed once all are there */
	struct staging st;
	staging_begin(&st);
	char **names = calloc(c.n ? c.n : 1, sizeof *names);
	int rc = names ? 0 : error("out of memory");
	for (size_t i = 0; i < c.n && !rc; i++) {
		char *name = ofl_node_file_name(c.v[i]);
		if (!name || asprintf(&names[i], "%s/%s", in->extract_all, name) < 0)
			rc = error("out of memory"), names[i] = NULL;
		else
			rc = write_node(in, c.v[i], names[i], &st.set);
		free(name);
	}
	rc = staging_end(&st, rc);
	for (size_t i = 0; i < c.n && names; i++) {
		if (!rc)
			printf("%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	free(c.v);
	return rc;
}

static void describe(FILE *f, const struct ofl_node *n, const char *lead)
{
	char *sel = ofl_node_path(n);
	fprintf(f, "%s%s", lead, sel ? sel : "?");
	if (n->kind == OFL_NODE_BUNDLE_ENTRY)
		fprintf(f, "\n");
	else
		fprintf(f, " (%s%s%s)\n", n->triple ? n->triple : "",
		        n->arch && *n->arch ? " " : "", n->arch ? n->arch : "");
	free(sel);
}

/* The image a loader would pick: an exact match before a compatible one,
 * the first in file order among equals. */
static int check(const struct insp *in, const struct ofl_node *root)
{
	struct collect c = {NULL, 0, true};
	ofl_node_walk(root, collect_code, &c);
	const struct ofl_node *best = NULL;
	int best_score = 0;
	for (size_t i = 0; i < c.n; i++) {
		int s = ofl_node_match(c.v[i], in->check);
		if (s > best_score) {
			best = c.v[i];
			best_score = s;
		}
	}
	int rc = 0;
	if (best) {
		describe(stdout, best, best_score == 2 ? "exact match: " : "compatible: ");
	} else {
		rc = error("%s: no image for '%s'; present:%s", root->name, in->check,
		           c.n ? "" : " none");
		for (size_t i = 0; i < c.n; i++)
			describe(stderr, c.v[i], "  ");
	}
	free(c.v);
	return rc;
}

/* ---- --gpu: which images load -------------------------------------------- */

/* Is n inside a relocatable ELF object (an input to a link)? */
static bool in_object(const struct ofl_node *n)
{
	for (; n; n = n->parent)
		if (n->format == OFL_FMT_ELF && n->size >= 18)
			return n->data[16] == 1; /* ET_REL */
	return false;
}

/* What a loader reads of a code node; a compressed fat binary entry is
 * known by its entry header alone (the driver inflates it). */
static bool gpu_image_of(const struct ofl_node *n, struct ofl_gpu_image *im, enum ofl_loader *ld)
{
	if (n->kind == OFL_NODE_FATBIN_ENTRY) {
		*ld = OFL_LOADER_CUDA;
		ofl_gpu_image_read(n->data, (size_t)n->size, im);
		if (n->fatbin_flags & OFL_FATBIN_FLAG_COMPRESSED) {
			im->code = n->fatbin_kind == OFL_FATBIN_PTX ? OFL_GPU_PTX : OFL_GPU_CUBIN;
			im->sm = n->sm;
		}
		return true;
	}
	/* OpenMP images are LLVM's runtime's; HIP's loads its own, not judged */
	if (n->kind != OFL_NODE_IMAGE ||
	    (n->offload_kind != OFL_OFK_OPENMP && n->offload_kind != OFL_OFK_CUDA))
		return false;
	*ld = n->offload_kind == OFL_OFK_CUDA ? OFL_LOADER_CUDA : OFL_LOADER_LLVM;
	ofl_gpu_image_read(n->data, (size_t)n->size, im);
	/* an object's AMDGPU bitcode is what the device link makes code of */
	if (im->code == OFL_GPU_BITCODE && in_object(n) && n->triple &&
	    !strncmp(n->triple, "amdgcn", 6))
		im->code = OFL_GPU_AMDGPU;
	return im->code != OFL_GPU_OTHER || (n->triple && strncmp(n->triple, "x86_64", 6));
}

static const char *const load_names[] = {"no", "yes", "jit"};
static const char *const code_names[] = {"other", "cubin", "ptx", "amdgpu", "bitcode"};

static void loads_json(const struct ofl_node *n, const struct ofl_gpu_image *im, enum ofl_loader ld,
                       enum ofl_load r, const char *why, bool first)
{
	char *sel = ofl_node_path(n);
	printf("%s\n    {\"selector\": ", first ? "" : ",");
	json_cstr(sel);
	free(sel);
	printf(", \"triple\": ");
	json_cstr(n->triple);
	printf(", \"arch\": ");
	json_cstr(n->arch);
	printf(", \"loader\": \"%s\", \"code\": \"%s\"", ld == OFL_LOADER_LLVM ? "llvm" : "cuda",
	       code_names[im->code]);
	if (im->sm)
		printf(", \"sm\": %u", im->sm);
	if (im->code == OFL_GPU_CUBIN && im->abi_version)
		printf(", \"cubin_header\": \"%s\", \"osabi\": %u, \"abi_version\": %u, "
		       "\"first_runtime\": %u",
		       ofl_cubin_first_runtime(im) == 1 ? "old" : "new", im->osabi, im->abi_version,
		       ofl_cubin_first_runtime(im));
	if (*im->toolkit) {
		printf(", \"toolkit\": ");
		json_cstr(im->toolkit);
	}
	printf(", \"loads\": \"%s\", \"why\": ", load_names[r]);
	json_cstr(why);
	printf("}");
}

/* One image judged for loader ld: its line (or JSON object); true when it
 * loads.  how names the loader for a bare file's two lines, else NULL. */
static bool judge(const struct insp *in, const struct ofl_node *n, const struct ofl_gpu_image *im,
                  enum ofl_loader ld, const char *how, bool first)
{
	char why[320], sub[32];
	const char *arch = n->arch;
	/* LLVM main's amdgpu9.0a-amd-amdhsa names the processor an image
	 * with no arch is for */
	if ((!arch || !*arch || !strcmp(arch, "generic")) && n->triple &&
	    ofl_amdgpu_subarch_processor(n->triple, sub, sizeof sub))
		arch = sub;
	enum ofl_load r = ofl_image_loads(im, arch, ld, in->runtime, in->gpu, why, sizeof why);
	if (in->fmt == FMT_JSON) {
		loads_json(n, im, ld, r, why, first);
		return r != OFL_LOAD_NO;
	}
	char *sel = ofl_node_path(n);
	if (how)
		printf("  %-4s %s (%s, %s): %s\n", load_names[r], sel ? sel : "?",
		       code_names[im->code], how, why);
	else
		printf("  %-4s %s (%s %s): %s\n", load_names[r], sel ? sel : "?",
		       n->triple ? n->triple : "", n->arch ? n->arch : "", why);
	free(sel);
	return r != OFL_LOAD_NO;
}

/* A file that is a cubin or PTX itself (what ptxas writes, what the
 * driver's cuModuleLoad and LLVM's runtime take): judged for both loaders,
 * one image that loads when either loads it. */
static bool bare_image(const struct ofl_node *root, struct ofl_gpu_image *im)
{
	if (root->nchildren)
		return false;
	ofl_gpu_image_read(root->data, (size_t)root->size, im);
	return im->code == OFL_GPU_CUBIN || im->code == OFL_GPU_PTX;
}

/* Every image the file holds for a GPU, with whether it loads there: exit
 * 0 when one does. */
static int gpu_loads(const struct insp *in, const struct ofl_node *root)
{
	struct collect c = {NULL, 0, true};
	ofl_node_walk(root, collect_code, &c);
	size_t judged = 0, loading = 0;
	if (in->fmt == FMT_JSON) {
		printf("%s  {\"file\": ", in->nfiles_done ? ",\n" : "");
		json_cstr(root->name);
		printf(", \"runtime\": %u, \"gpu\": ", in->runtime);
		json_cstr(in->gpu);
		printf(", \"images\": [");
	} else {
		printf("%s: on %s, with LLVM %u's offload runtime (OpenMP) and the CUDA driver "
		       "(CUDA):\n",
		       root->name, in->gpu, in->runtime);
	}
	struct ofl_gpu_image im;
	if (bare_image(root, &im)) {
		char llvm[48];
		snprintf(llvm, sizeof llvm, "LLVM %u's offload runtime", in->runtime);
		bool any = judge(in, root, &im, OFL_LOADER_LLVM, llvm, true);
		any |= judge(in, root, &im, OFL_LOADER_CUDA, "the CUDA driver", false);
		loading += any;
		judged++;
	}
	for (size_t i = 0; i < c.n; i++) {
		enum ofl_loader ld;
		if (!gpu_image_of(c.v[i], &im, &ld))
			continue;
		loading += judge(in, c.v[i], &im, ld, NULL, !judged);
		judged++;
	}
	free(c.v);
	if (in->fmt == FMT_JSON)
		printf("%s], \"loadable\": %zu}", judged ? "\n  " : "", loading);
	else
		printf("  %zu of %zu image(s) load\n", loading, judged);
	if (!loading)
		return error("%s: no image loads on %s with LLVM %u's offload runtime or the CUDA "
		             "driver",
		             root->name, in->gpu, in->runtime);
	return 0;
}

static int inspect_tree(struct insp *in, const char *path, const uint8_t *d, size_t n)
{
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_inspect_opts o = {in->tolerant ? OFL_INSPECT_TOLERANT : 0, ofl_bfd_read};
	if (ofl_inspect_build(d, n, path, &o, &root, &err))
		return error_lib(&err);
	int rc = 0;
	if (in->extract) {
		rc = extract_one(in, root);
		if (rc < 0)
			rc = error("'%s' names no layer of '%s' (its selectors are what 'offlink "
			           "inspect --json' lists)",
			           in->extract, path);
	} else if (in->extract_all) {
		rc = extract_all(in, root);
	} else if (in->check) {
		rc = check(in, root);
	} else if (in->gpu) {
		rc = gpu_loads(in, root);
	} else if (in->fmt == FMT_JSON) {
		printf("%s", in->nfiles_done ? ",\n" : "");
		json_node(in, root, 1);
	} else {
		tree_node(in, root, 0);
	}
	in->nfiles_done++; /* a file that did not parse printed nothing */
	ofl_node_free(root);
	return rc;
}

static int inspect_one(struct insp *in, const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_file_open(&f, path, &err)) {
		if (in->fmt == FMT_OBJDUMP && err.sys_errno)
			return error("'%s': %s", path, strerror(err.sys_errno));
		return error_lib(&err);
	}
	in->current = path;
	int rc = in->fmt == FMT_OBJDUMP && !in->extract && !in->extract_all && !in->check
	             ? inspect_objdump(in, path, f.data, f.size)
	             : inspect_tree(in, path, f.data, f.size);
	ofl_file_close(&f);
	return rc;
}

/* The file part of a selector: an input it starts with or, with no
 * inputs, its longest prefix ending before '(', '/' or '[' that names a
 * file. */
static int run_extract(struct insp *in, const struct strlist *files)
{
	for (size_t i = 0; i < files->n; i++) {
		size_t len = strlen(files->v[i]);
		if (!strncmp(in->extract, files->v[i], len))
			return inspect_one(in, files->v[i]);
	}
	for (size_t len = strlen(in->extract); !files->n && len > 0; len--) {
		char c = in->extract[len];
		if (c && c != '(' && c != '/' && c != '[')
			continue;
		char *f = strndup(in->extract, len);
		struct stat st;
		int rc = f && stat(f, &st) == 0 && S_ISREG(st.st_mode) ? inspect_one(in, f) : -1;
		free(f);
		if (rc >= 0)
			return rc;
	}
	return error("'%s' names no layer of the input files", in->extract);
}

int cmd_inspect(int argc, char **argv)
{
	const char *format = "tree";
	bool json = false, tolerant = false;
	unsigned long long llvm = 22, runtime = 0;
	struct strlist files = {0};
	struct insp in = {FMT_TREE, OFL_LLVM_22, 0, NULL, NULL, NULL, NULL, NULL, 0, false, NULL};
	const struct opt table[] = {
	    {"format", OPT_STR, &format, NULL, "tree|json|llvm-objdump",
	     "output format; llvm-objdump prints what llvm-objdump --offloading prints"},
	    {"json", OPT_FLAG, &json, NULL, NULL, "same as --format=json"},
	    {"llvm-version", OPT_UINT, &llvm, NULL, "19|22|23",
	     "name offload kinds with that LLVM's numbering, print as its llvm-objdump "
	     "(default 22)"},
	    {"extract", OPT_STR, &in.extract, NULL, "SELECTOR",
	     "write the bytes of one layer, e.g. 'lib.a(m.o)/.llvm.offloading[1]'"},
	    {"o", OPT_STR, &in.output, NULL, "FILE",
	     "where --extract writes (default: a name "
	     "made from the selector; - for stdout)"},
	    {"extract-all", OPT_STR, &in.extract_all, NULL, "DIR",
	     "write every image and entry into DIR with self-describing names"},
	    {"check", OPT_STR, &in.check, NULL, "TARGET",
	     "which image suits TARGET (triple[--target-id], sm_90, gfx90a:xnack+, x86_64); "
	     "exit 1 when none does"},
	    {"gpu", OPT_STR, &in.gpu, NULL, "GPU",
	     "which images load on GPU (sm_90, gfx90a:sramecc+:xnack-); exit 1 when none "
	     "does; needs --runtime"},
	    {"runtime", OPT_UINT, &runtime, NULL, "N",
	     "the release of LLVM's offload runtime that loads OpenMP images (19, 22, ...)"},
	    {"tolerant", OPT_FLAG, &tolerant, NULL, NULL,
	     "skip bytes in offloading sections that do not parse instead of failing"},
	    {"help", OPT_HELP, NULL, NULL, NULL, "show this help"},
	    {"version", OPT_VERSION, NULL, NULL, NULL, "show the version"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &files, "offlink inspect [options] FILE...",
	                    "show every layer inside objects, archives, executables and bundles");
	if (rc)
		return rc == 2 ? 0 : rc;
	in.llvm = (enum ofl_llvm_version)llvm_release_option(llvm);
	in.tolerant = tolerant;
	if (json || !strcmp(format, "json"))
		in.fmt = FMT_JSON;
	else if (!strcmp(format, "llvm-objdump"))
		in.fmt = FMT_OBJDUMP;
	else if (strcmp(format, "tree"))
		rc = error("unknown --format '%s': use tree, json or llvm-objdump", format);
	if (!rc && !in.llvm)
		rc = 1;
	if (!rc && files.n == 0 && !in.extract)
		rc = error("no input files; see 'offlink inspect --help'");
	if (!rc && in.output && !in.extract)
		rc = error("-o needs --extract");
	if (!rc && (!!in.extract + !!in.extract_all + !!in.check + !!in.gpu) > 1)
		rc = error("use one of --extract, --extract-all, --check and --gpu");
	if (!rc && !!in.gpu != !!runtime)
		rc = error("--gpu and --runtime go together: --runtime=19 --gpu=sm_90");
	if (!rc && runtime && (runtime < 14 || runtime > 99))
		rc = error("--runtime is an LLVM release (14 to 99), not %llu", runtime);
	in.runtime = (unsigned)runtime;
	if (!rc && in.extract) {
		rc = run_extract(&in, &files);
		strlist_release(&files);
		return rc;
	}
	bool json_list = in.fmt == FMT_JSON && !in.extract_all && !in.check;
	if (!rc && json_list)
		printf("{\"%s\": [\n", in.gpu ? "gpu" : "files");
	/* --gpu answers for every file; a file where nothing loads fails it */
	bool opened = !rc;
	for (size_t i = 0; i < files.n && (!rc || (in.gpu && opened)); i++) {
		int r = inspect_one(&in, files.v[i]);
		rc = rc ? rc : r;
	}
	if (json_list && (!rc || (in.gpu && opened)))
		printf("\n]}\n");
	strlist_release(&files);
	return rc;
}

/* llvm-objdump --help and --version: what this one does, and that LLVM's
 * does the rest. */
static void objdump_answer(const char *opt)
{
	const char *what = "--offloading only; LLVM's llvm-objdump does everything else";
	if (!strcmp(opt, "--version"))
		print_version(what);
	else
		printf(
		    "OVERVIEW: offlink's llvm-objdump: %s\n\n"
		    "USAGE: %s --offloading [<input object files>]\n\n"
		    "OPTIONS:\n"
		    "  --offloading  Display the content of the offloading sections (default input "
		    "a.out)\n"
		    "  --help        Display this help\n"
		    "  --version     Display the version of this program\n\n"
		    "The same listing: offlink inspect --format=llvm-objdump (man "
		    "offlink-inspect).\n",
		    what, ofl_prog);
}

/* The llvm-objdump personality: --offloading only, read by the inspector's
 * objdump format as the release personality_release picks prints it (19's
 * numbering for llvm-objdump-19, 23's image sizes and nested binaries for
 * llvm-objdump-23 or --llvm-version=23); every other option belongs to the
 * real llvm-objdump. */
int cmd_llvm_objdump(int argc, char **argv)
{
	bool offloading = false, only_files = false;
	const char *query = NULL; /* --help or --version: answered, nothing else done */
	char **v = calloc((size_t)argc + 4, sizeof *v), release[32];
	unsigned asked = 0;
	if (!v)
		return error("out of memory");
	int k = 0, rc = 0;
	v[k++] = "inspect";
	v[k++] = "--format=llvm-objdump";
	v[k++] = release;
	v[k++] = "--";
	for (int i = 1; i < argc && !rc && !query; i++) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || !a[1])
			v[k++] = argv[i];
		else if (!strcmp(a, "--"))
			only_files = true;
		else if (!strncmp(a, "--llvm-version=", 15))
			rc = !(asked = llvm_release_option(strtoull(a + 15, NULL, 10)));
		else if (!strcmp(a, "--offloading") || !strcmp(a, "-offloading"))
			offloading = true;
		else if (!strcmp(a, "--help") || !strcmp(a, "-help") || !strcmp(a, "--version"))
			query = a;
		else
			rc = error("'%s' is not supported here: this llvm-objdump is offlink's and "
			           "only does --offloading; run LLVM's llvm-objdump for it",
			           a);
	}
	snprintf(release, sizeof release, "--llvm-version=%u", personality_release(argv[0], asked));
	if (!rc && query)
		objdump_answer(query);
	else if (!rc && !offloading)
		rc = error("this llvm-objdump is offlink's and only does --offloading; run LLVM's "
		           "llvm-objdump for anything else");
	if (!rc && k == 4)
		v[k++] = "a.out"; /* llvm-objdump's default input */
	rc = rc || query ? rc : cmd_inspect(k, v);
	free(v);
	return rc;
}
