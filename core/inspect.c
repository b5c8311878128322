/* The inspector's tree: every layer of a file, recognised by its bytes. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/archive.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
#include "offlink/elf.h"
#include "offlink/fatbin.h"
#include "offlink/inspect.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"
#include "offlink/target_id.h"

struct ictx {
	const char *path; /* the file, for thin members */
	unsigned flags;
	ofl_foreign_reader foreign;
	struct ofl_error *err;
};

static int analyze(struct ictx *c, struct ofl_node *n, unsigned depth);

/* ---- nodes ---------------------------------------------------------------- */

void ofl_node_free(struct ofl_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nchildren; i++)
		ofl_node_free(n->children[i]);
	free(n->children);
	for (size_t i = 0; i < n->nstrings; i++) {
		free(n->strings[i].key);
		free(n->strings[i].value);
	}
	free(n->strings);
	free(n->name);
	free(n->format_name);
	free(n->triple);
	free(n->arch);
	free(n->owned);
	if (n->file) {
		ofl_file_close(n->file);
		free(n->file);
	}
	free(n);
}

static struct ofl_node *add_child(struct ofl_node *p, enum ofl_node_kind kind, const uint8_t *data,
                                  uint64_t size, uint64_t offset, struct ofl_error *err)
{
	struct ofl_node *n = ofl_calloc(1, sizeof *n);
	if (!n || OFL_GROW(p->children, p->children_cap, p->nchildren)) {
		free(n);
		OFL_NOMEM(err);
		return NULL;
	}
	p->children[p->nchildren++] = n;
	n->kind = kind;
	n->data = data;
	n->size = size;
	n->offset = offset;
	n->inflated = p->inflated;
	n->parent = p;
	return n;
}

static int set_str(char **dst, const char *s, size_t len, struct ofl_error *err)
{
	free(*dst);
	*dst = ofl_strndup(s, len);
	return *dst ? 0 : OFL_NOMEM(err);
}

/* The index of p's last child among its siblings of the same kind: one
 * more than the nearest earlier one's (a scan of the kinds in between,
 * not of every child, so adding n children costs O(n)). */
static size_t next_index(const struct ofl_node *p)
{
	enum ofl_node_kind k = p->children[p->nchildren - 1]->kind;
	for (size_t i = p->nchildren - 1; i-- > 0;)
		if (p->children[i]->kind == k)
			return p->children[i]->index + 1;
	return 0;
}

/* Where errors in n's bytes are reported: the file, or "lib.a(m.o)". */
static void locate(struct ictx *c, const struct ofl_node *n, uint64_t rel)
{
	const struct ofl_node *m = n;
	while (m->parent && m->kind != OFL_NODE_MEMBER)
		m = m->parent;
	char where[OFL_ERROR_PATH_MAX];
	if (m->kind == OFL_NODE_MEMBER)
		snprintf(where, sizeof where, "%s(%s)", c->path, m->name);
	else
		snprintf(where, sizeof where, "%s", c->path);
	if (n->inflated) {
		const struct ofl_node *z = n;
		while (z && !z->owned)
			z = z->parent;
		ofl_error_prefix(c->err, "in the bytes inflated from offset %llu",
		                 (unsigned long long)(z ? z->offset : 0));
	}
	if (!c->err->path[0])
		snprintf(c->err->path, sizeof c->err->path, "%s", where);
	if (c->err->offset != OFL_NO_OFFSET)
		c->err->offset += n->offset + rel;
	else
		c->err->offset = n->offset + rel;
}

/* ---- formats ------------------------------------------------------------ */

const char *ofl_elf_format_name(const uint8_t *d)
{
	bool is64 = d[4] == 2, le = d[5] == 1;
	unsigned mach = le ? (unsigned)(d[18] | d[19] << 8) : (unsigned)(d[18] << 8 | d[19]);
	switch (mach) {
	case 62:
		return is64 ? "elf64-x86-64" : "elf32-x86-64";
	case 3:
		return "elf32-i386";
	case 183:
		return le ? "elf64-littleaarch64" : "elf64-bigaarch64";
	case 224:
		return "elf64-amdgpu";
	case 190:
		return "elf64-nvptx";
	case 21:
		return le ? "elf64-powerpcle" : "elf64-powerpc";
	default:
		return is64 ? "elf64-unknown" : "elf32-unknown";
	}
}

/* Bytes with a nested layer we read. */
static bool has_layer(const uint8_t *d, uint64_t n)
{
	enum ofl_format f = ofl_format_of(d, (size_t)n);
	return f == OFL_FMT_OFFLOAD || f == OFL_FMT_BUNDLE || f == OFL_FMT_CCOB ||
	       f == OFL_FMT_FATBIN;
}

/* ---- OffloadBinaries ---------------------------------------------------- */

static int copy_strings(struct ofl_node *n, const struct ofl_obin *b, struct ofl_error *err)
{
	n->strings = b->nstrings ? ofl_calloc(b->nstrings, sizeof *n->strings) : NULL;
	if (b->nstrings && !n->strings)
		return OFL_NOMEM(err);
	n->nstrings = b->nstrings;
	for (size_t i = 0; i < b->nstrings; i++) {
		n->strings[i].key = ofl_strdup(b->strings[i].key);
		size_t vs = (size_t)b->strings[i].value_size;
		n->strings[i].value = ofl_malloc(vs + 1);
		if (n->strings[i].value) {
			memcpy(n->strings[i].value, b->strings[i].value, vs);
			n->strings[i].value[vs] = 0;
		}
		n->strings[i].value_size = vs;
		if (!n->strings[i].key || !n->strings[i].value)
			return OFL_NOMEM(err);
	}
	const char *t = ofl_obin_get(b, "triple"), *a = ofl_obin_get(b, "arch");
	if (t && set_str(&n->triple, t, strlen(t), err))
		return OFL_ENOMEM;
	if (a && set_str(&n->arch, a, strlen(a), err))
		return OFL_ENOMEM;
	return 0;
}

/* rel: the binary's offset within p's bytes. */
static int add_images(struct ictx *c, struct ofl_node *p, uint64_t rel, struct ofl_obin_set *set)
{
	const uint8_t *inflated = set->inflated;
	for (size_t k = 0; k < set->nentries; k++) {
		const struct ofl_obin *b = &set->entries[k];
		uint64_t off =
		    inflated ? (uint64_t)(b->image - inflated) : p->offset + rel + b->image_offset;
		struct ofl_node *n =
		    add_child(p, OFL_NODE_IMAGE, b->image, b->image_size, off, c->err);
		if (!n)
			return OFL_ENOMEM;
		n->index = next_index(p);
		n->version = set->version;
		n->binary_offset = p->offset + rel;
		n->binary_size = set->size;
		n->compression = set->compression;
		n->inflated_size = set->inflated_size;
		n->image_kind = b->image_kind;
		n->offload_kind = b->offload_kind;
		n->flags = b->flags;
		if (inflated) {
			n->inflated = true;
			if (k == 0) {
				n->owned = set->inflated;
				set->inflated = NULL;
			}
		}
		if (copy_strings(n, b, c->err))
			return OFL_ENOMEM;
	}
	return 0;
}

struct walk {
	struct ictx *c;
	struct ofl_node *p;
};

static int image_binary(void *ctx, const uint8_t *b, size_t left, uint64_t off, uint64_t *span,
                        struct ofl_error *err)
{
	struct walk *w = ctx;
	struct ofl_obin_set set;
	int rc = ofl_obin_parse_set(b, left, &set, err);
	if (rc)
		return rc;
	*span = set.span;
	rc = add_images(w->c, w->p, off, &set);
	ofl_obin_set_release(&set);
	return rc;
}

/* Binaries in p's bytes, walked by their sizes (scanning over padding);
 * strict: a magic that does not parse is an error. */
static int walk_binaries(struct ictx *c, struct ofl_node *p, bool strict)
{
	struct walk w = {c, p};
	int rc = ofl_scan_each(p->data, (size_t)p->size, 0, strict ? OFL_SCAN_STRICT : 0,
	                       image_binary, &w, c->err);
	if (rc && c->err->code == OFL_EFORMAT && !c->err->path[0])
		locate(c, p, 0);
	return rc;
}

/* ---- bundles, CCOB, fatbinaries ----------------------------------------- */

static int read_bundle(struct ictx *c, struct ofl_node *p)
{
	struct ofl_bundle b;
	int rc = ofl_bundle_read(&b, p->data, (size_t)p->size, ofl_file_type_find("bc"), c->err);
	if (rc) {
		ofl_bundle_release(&b);
		locate(c, p, 0);
		return rc;
	}
	bool inflated = p->inflated;
	if (b.compressed) {
		struct ofl_ccob_header h;
		if (ofl_ccob_parse_header(p->data, (size_t)p->size, &h, c->err) == 0)
			p->compression = h.method == OFL_CCOB_ZLIB ? 1 : 2;
		ofl_error_clear(c->err);
		p->inflated_size = b.size;
		p->owned = ofl_buf_detach(&b.inflated, NULL);
		inflated = true;
	}
	for (size_t i = 0; i < b.n && !rc; i++) {
		const struct ofl_bundle_entry *e = &b.entries[i];
		struct ofl_node *n =
		    add_child(p, OFL_NODE_BUNDLE_ENTRY, b.data + e->offset, e->size,
		              b.compressed ? e->offset : p->offset + e->offset, c->err);
		if (!n || set_str(&n->name, e->id, strlen(e->id), c->err)) {
			rc = OFL_ENOMEM;
			break;
		}
		n->inflated = inflated;
	}
	ofl_bundle_release(&b);
	return rc;
}

static int read_fatbin(struct ictx *c, struct ofl_node *p)
{
	uint64_t pos = 0;
	int rc = 0;
	/* Several fatbinaries may follow each other, padded to 8. */
	while (!rc && pos < p->size && ofl_fatbin_is(p->data + pos, (size_t)(p->size - pos))) {
		struct ofl_fatbin f;
		rc = ofl_fatbin_parse(p->data + pos, (size_t)(p->size - pos), &f, c->err);
		if (rc) {
			locate(c, p, pos);
			return rc;
		}
		for (size_t i = 0; i < f.n && !rc; i++) {
			const struct ofl_fatbin_entry *e = &f.entries[i];
			struct ofl_node *n =
			    add_child(p, OFL_NODE_FATBIN_ENTRY, p->data + pos + e->payload_offset,
			              e->payload_size, p->offset + pos + e->payload_offset, c->err);
			char arch[32];
			snprintf(arch, sizeof arch, "sm_%u", e->sm);
			if (!n || set_str(&n->arch, arch, strlen(arch), c->err) ||
			    set_str(&n->triple, "nvptx64-nvidia-cuda", 19, c->err)) {
				rc = OFL_ENOMEM;
				break;
			}
			n->index = next_index(p);
			n->fatbin_kind = e->kind;
			n->sm = e->sm;
			n->fatbin_flags = e->flags;
			n->payload_size = e->payload_size;
			n->inflated_size = e->uncompressed_size;
		}
		pos += f.size;
		pos += (8 - pos % 8) % 8;
		ofl_fatbin_release(&f);
	}
	return rc;
}

/* ---- objects -------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* Offloading sections, bundler sections, and sections whose contents start
 * with a layer we read (.hip_fatbin, .nv_fatbin, ...). */
static int elf_section(struct ictx *c, struct ofl_node *p, const GElf_Shdr *sh, const char *name)
{
	if (!ofl_range_ok(sh->sh_offset, sh->sh_size, p->size)) {
		ofl_error_set(c->err, OFL_EFORMAT, NULL, 0,
		              "section '%s' at %llu+%llu runs past the end of the file", name,
		              (unsigned long long)sh->sh_offset, (unsigned long long)sh->sh_size);
		locate(c, p, 0);
		return OFL_EFORMAT;
	}
	const uint8_t *d = p->data + sh->sh_offset;
	bool offl = sh->sh_type == OFL_SHT_LLVM_OFFLOADING || starts_with(name, ".llvm.offloading");
	bool bundle = starts_with(name, OFL_BUNDLE_MAGIC);
	if (!offl && !bundle && !has_layer(d, sh->sh_size))
		return 0;
	struct ofl_node *n = add_child(p, bundle ? OFL_NODE_BUNDLE_ENTRY : OFL_NODE_SECTION, d,
	                               sh->sh_size, p->offset + sh->sh_offset, c->err);
	if (!n)
		return OFL_ENOMEM;
	const char *nm = bundle ? name + OFL_BUNDLE_MAGIC_LEN : name;
	if (offl)
		n->format = OFL_FMT_OFFLOAD;
	return set_str(&n->name, nm, strlen(nm), c->err);
}

static int read_elf(struct ictx *c, struct ofl_node *p)
{
	if (set_str(&p->format_name, ofl_elf_format_name(p->data),
	            strlen(ofl_elf_format_name(p->data)), c->err))
		return OFL_ENOMEM;
	/* a section table outside the file: libelf would show none */
	if (ofl_elf_llvm_check(p->data, (size_t)p->size, c->err)) {
		ofl_error_prefix(c->err, "malformed ELF file");
		locate(c, p, 0);
		return OFL_EFORMAT;
	}
	Elf *elf = ofl_elf_memory(p->data, (size_t)p->size, ELF_K_ELF);
	size_t shstrndx;
	int rc = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = ofl_error_set(c->err, OFL_EFORMAT, NULL, 0, "malformed ELF file: %s",
		                   elf_errmsg(-1));
		locate(c, p, 0);
		goto done;
	}
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s && !rc; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		rc = elf_section(c, p, &sh, name ? name : "");
	}
done:
	if (elf)
		ofl_elf_end(elf, p->data);
	return rc;
}

/* Non-ELF objects (COFF, PE, Mach-O, ...) are read by the front end's
 * foreign reader, if it has one (offlink's is built on libbfd, which core
 * must not load into a linker): it reports the object and its sections. */
struct ofl_foreign_sink {
	struct ictx *c;
	struct ofl_node *p;
};

int ofl_foreign_object(struct ofl_foreign_sink *s, const char *format_name)
{
	s->p->format = OFL_FMT_COFF;
	return set_str(&s->p->format_name, format_name, strlen(format_name), s->c->err);
}

int ofl_foreign_section(struct ofl_foreign_sink *s, const char *name, uint64_t offset,
                        uint64_t size)
{
	GElf_Shdr sh = {0};
	sh.sh_offset = offset;
	sh.sh_size = size;
	return elf_section(s->c, s->p, &sh, name);
}

/* Returns 1 when the reader read the object, 0 when it does not know it. */
static int read_foreign(struct ictx *c, struct ofl_node *p)
{
	struct ofl_foreign_sink s = {c, p};
	return c->foreign ? c->foreign(p->data, p->size, &s) : 0;
}

/* ---- bitcode ------------------------------------------------------------- */

/* Bitcode keeps an embedded object (@llvm.embedded.object) as a string
 * constant whose bytes are 8-bit fields at any bit position: look for
 * binaries at each of the eight bit shifts.  Each one found becomes a
 * ".llvm.offloading" node over a copy of its shifted bytes; offsets below
 * count in the shifted stream. */
struct shifted {
	struct ofl_node *p;
	unsigned s;
};

static int shifted_binary(void *ctx, const uint8_t *m, size_t left, uint64_t pos, uint64_t *span,
                          struct ofl_error *err)
{
	struct shifted *sh = ctx;
	struct ofl_obin_set set;
	int rc = ofl_obin_parse_set(m, left, &set, err);
	if (rc)
		return rc;
	size_t n = set.span < left ? (size_t)set.span : left;
	ofl_obin_set_release(&set);
	/* Each node owns a copy of its own bytes only. */
	uint8_t *own = ofl_malloc(n);
	struct ofl_node *sec = own ? add_child(sh->p, OFL_NODE_SECTION, own, n, pos, err) : NULL;
	if (!sec) {
		free(own);
		return OFL_NOMEM(err);
	}
	memcpy(own, m, n);
	sec->owned = own;
	sec->format = OFL_FMT_OFFLOAD;
	sec->inflated = true;
	*span = n;
	char fmt[64];
	snprintf(fmt, sizeof fmt, "offload binary (bitcode bytes shifted by %u bits)", sh->s);
	rc = set_str(&sec->name, OFL_OFFLOADING_SECTION, 16, err);
	return rc ? rc : set_str(&sec->format_name, fmt, strlen(fmt), err);
}

static int bitcode_shift(struct ictx *c, struct ofl_node *p, unsigned s)
{
	size_t n = (size_t)p->size - 1;
	uint8_t *b = ofl_malloc(n);
	if (!b)
		return OFL_NOMEM(c->err);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(p->data[i] >> s | p->data[i + 1] << (8 - s));
	struct shifted sh = {p, s};
	int rc = ofl_scan_each(b, n, 0, 0, shifted_binary, &sh, c->err);
	free(b);
	return rc;
}

static int read_bitcode(struct ictx *c, struct ofl_node *p)
{
	int rc = 0;
	for (unsigned s = 0; s < 8 && p->size > 1 && !rc; s++)
		rc = bitcode_shift(c, p, s);
	return rc;
}

/* ---- archives ------------------------------------------------------------- */

static int thin_member(struct ictx *c, struct ofl_node *n, const struct ofl_ar_member *m)
{
	n->file = ofl_calloc(1, sizeof *n->file);
	if (!n->file)
		return OFL_NOMEM(c->err);
	*n->file = (struct ofl_file)OFL_FILE_INIT;
	int rc = ofl_archive_open_thin(c->path, m, n->file, c->err);
	if (rc) {
		ofl_error_prefix(c->err, "thin archive member '%s'", n->name);
		return rc;
	}
	n->data = n->file->data;
	n->size = n->file->size;
	n->offset = 0;
	return 0;
}

static int read_archive(struct ictx *c, struct ofl_node *p, unsigned depth)
{
	struct ofl_archive a;
	int rc = ofl_archive_parse(p->data, (size_t)p->size, &a, c->err);
	if (rc) {
		locate(c, p, 0);
		return rc;
	}
	rc = set_str(&p->format_name, a.thin ? "thin ar archive" : "ar archive", a.thin ? 15 : 10,
	             c->err);
	for (size_t i = 0; i < a.nmembers && !rc; i++) {
		const struct ofl_ar_member *m = &a.members[i];
		struct ofl_node *n = add_child(p, OFL_NODE_MEMBER, m->data, m->size,
		                               p->offset + m->data_offset, c->err);
		if (!n || set_str(&n->name, m->name, strlen(m->name), c->err)) {
			rc = OFL_ENOMEM;
			break;
		}
		/* Members of a thin archive nested in another layer name files
		 * relative to nothing we know: they stay unread. */
		if (a.thin && (p->inflated || p->parent)) {
			n->data = NULL;
			n->size = 0;
			continue;
		}
		if (a.thin)
			rc = thin_member(c, n, m);
		rc = rc ? rc : analyze(c, n, depth + 1);
	}
	ofl_archive_release(&a);
	return rc;
}

/* ---- the walk ------------------------------------------------------------- */

static bool is_top(const struct ofl_node *n)
{
	return n->kind == OFL_NODE_FILE || n->kind == OFL_NODE_MEMBER;
}

static int read_elf_file(struct ictx *c, struct ofl_node *n)
{
	int rc = read_elf(c, n);
	/* A linked file keeps no section we know: scan its bytes. */
	if (!rc && is_top(n) && n->nchildren == 0)
		rc = walk_binaries(c, n, false);
	return rc;
}

/* Bytes of no format we know: a top-level file or member may be an object
 * the foreign reader knows, or hold binaries anywhere. */
static int read_other(struct ictx *c, struct ofl_node *n)
{
	if (!is_top(n))
		return 0;
	int rc = read_foreign(c, n);
	if (rc < 0)
		return rc;
	if (rc == 0)
		rc = walk_binaries(c, n, false);
	return rc < 0 ? rc : 0;
}

static int detect(struct ictx *c, struct ofl_node *n, unsigned depth)
{
	enum ofl_format f = ofl_format_of(n->data, (size_t)n->size);
	/* An offloading section holds binaries, whatever else its bytes
	 * start with (an ELF or an archive is still read as one). */
	if (n->format == OFL_FMT_OFFLOAD && f != OFL_FMT_ARCHIVE && f != OFL_FMT_ELF)
		f = OFL_FMT_OFFLOAD;
	n->format = f;
	switch (f) {
	case OFL_FMT_ARCHIVE:
		return read_archive(c, n, depth);
	case OFL_FMT_ELF:
		return read_elf_file(c, n);
	case OFL_FMT_OFFLOAD:
		return walk_binaries(c, n, !(c->flags & OFL_INSPECT_TOLERANT));
	case OFL_FMT_BUNDLE:
	case OFL_FMT_CCOB:
		return read_bundle(c, n);
	case OFL_FMT_FATBIN:
		return read_fatbin(c, n);
	case OFL_FMT_BITCODE:
		return read_bitcode(c, n);
	default:
		return read_other(c, n);
	}
}

static int analyze(struct ictx *c, struct ofl_node *n, unsigned depth)
{
	if (depth > OFL_INSPECT_MAX_DEPTH) {
		ofl_error_set(c->err, OFL_EFORMAT, NULL, 0,
		              "layers nested more than %d deep (a layer that contains itself?)",
		              OFL_INSPECT_MAX_DEPTH);
		locate(c, n, 0);
		return OFL_EFORMAT;
	}
	size_t before = n->nchildren;
	int rc = detect(c, n, depth);
	for (size_t i = before; i < n->nchildren && !rc; i++)
		if (n->children[i]->kind != OFL_NODE_MEMBER)
			rc = analyze(c, n->children[i], depth + 1);
	return rc;
}

int ofl_inspect_build(const uint8_t *data, size_t size, const char *path,
                      const struct ofl_inspect_opts *opts, struct ofl_node **out,
                      struct ofl_error *err)
{
	*out = NULL;
	struct ofl_node *root = ofl_calloc(1, sizeof *root);
	if (!root || set_str(&root->name, path, strlen(path), err)) {
		free(root);
		return OFL_NOMEM(err);
	}
	root->kind = OFL_NODE_FILE;
	root->data = data;
	root->size = size;
	struct ictx c = {path, opts ? opts->flags : 0, opts ? opts->foreign : NULL, err};
	int rc = analyze(&c, root, 0);
	if (rc) {
		/* a nested reader's error names no file: this one is it */
		ofl_error_locate(err, path, 0);
		ofl_node_free(root);
		return rc;
	}
	*out = root;
	return 0;
}

/* ---- selectors ------------------------------------------------------------ */

static int append_segment(struct ofl_buf *b, const struct ofl_node *n)
{
	switch (n->kind) {
	case OFL_NODE_FILE:
		return ofl_buf_append_str(b, n->name);
	case OFL_NODE_MEMBER:
		return ofl_buf_printf(b, "(%s)", n->name);
	case OFL_NODE_SECTION:
	case OFL_NODE_BUNDLE_ENTRY:
		return ofl_buf_printf(b, "/%s", n->name);
	case OFL_NODE_IMAGE:
	case OFL_NODE_FATBIN_ENTRY:
		return ofl_buf_printf(b, "[%zu]", n->index);
	}
	return 0;
}

static int build_path(struct ofl_buf *b, const struct ofl_node *n)
{
	if (n->parent) {
		int rc = build_path(b, n->parent);
		if (rc)
			return rc;
	}
	return append_segment(b, n);
}

char *ofl_node_path(const struct ofl_node *n)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (build_path(&b, n) || ofl_buf_append(&b, "", 1)) {
		ofl_buf_release(&b);
		return NULL;
	}
	return (char *)ofl_buf_detach(&b, NULL);
}

/* Matches the segments of n's subtree against sel, which continues the
 * path that led to n. */
static const struct ofl_node *find_in(const struct ofl_node *n, const char *sel)
{
	if (!*sel)
		return n;
	for (size_t i = 0; i < n->nchildren; i++) {
		struct ofl_buf b = OFL_BUF_INIT;
		const struct ofl_node *r = NULL;
		if (append_segment(&b, n->children[i]) == 0 && b.len <= strlen(sel) &&
		    !memcmp(sel, b.data, b.len))
			r = find_in(n->children[i], sel + b.len);
		ofl_buf_release(&b);
		if (r)
			return r;
	}
	return NULL;
}

const struct ofl_node *ofl_node_find(const struct ofl_node *root, const char *sel)
{
	size_t len = strlen(root->name);
	if (strncmp(sel, root->name, len))
		return NULL;
	return find_in(root, sel + len);
}

bool ofl_node_is_code(const struct ofl_node *n)
{
	return (n->kind == OFL_NODE_IMAGE || n->kind == OFL_NODE_BUNDLE_ENTRY ||
	        n->kind == OFL_NODE_FATBIN_ENTRY) &&
	       n->nchildren == 0;
}

static const char *node_suffix(const struct ofl_node *n)
{
	if (n->kind == OFL_NODE_IMAGE && *ofl_image_kind_suffix(n->image_kind, OFL_LLVM_23))
		return ofl_image_kind_suffix(n->image_kind, OFL_LLVM_23);
	if (n->kind == OFL_NODE_FATBIN_ENTRY)
		return n->fatbin_kind == OFL_FATBIN_PTX ? "ptx" : "cubin";
	switch (n->format) {
	case OFL_FMT_ELF:
		return "o";
	case OFL_FMT_ARCHIVE:
		return "a";
	case OFL_FMT_BITCODE:
		return "bc";
	case OFL_FMT_FATBIN:
		return "fatbin";
	default:
		return "bin";
	}
}

char *ofl_node_file_name(const struct ofl_node *n)
{
	char *p = ofl_node_path(n);
	if (!p)
		return NULL;
	/* The directory part of the input names nothing inside it. */
	const struct ofl_node *root = n;
	while (root->parent)
		root = root->parent;
	const char *slash = strrchr(root->name, '/');
	size_t skip = slash ? (size_t)(slash + 1 - root->name) : 0;
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = ofl_buf_append_str(&b, p + skip);
	if (!rc && n->triple && *n->triple)
		rc = ofl_buf_printf(&b, "-%s", n->triple);
	if (!rc && n->arch && *n->arch)
		rc = ofl_buf_printf(&b, "-%s", n->arch);
	rc = rc ? rc : ofl_buf_printf(&b, ".%s", node_suffix(n));
	rc = rc ? rc : ofl_buf_append(&b, "", 1);
	free(p);
	if (rc) {
		ofl_buf_release(&b);
		return NULL;
	}
	for (size_t i = 0; i + 1 < b.len; i++) {
		char ch = (char)b.data[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '+' ||
		          ch == '-';
		if (!ok)
			b.data[i] = '_';
	}
	/* A leading dot would hide the file. */
	if (b.data[0] == '.')
		b.data[0] = '_';
	return (char *)ofl_buf_detach(&b, NULL);
}

void ofl_node_walk(const struct ofl_node *n, void (*fn)(const struct ofl_node *, void *), void *ctx)
{
	fn(n, ctx);
	for (size_t i = 0; i < n->nchildren; i++)
		ofl_node_walk(n->children[i], fn, ctx);
}

const char *ofl_node_kind_name(enum ofl_node_kind k)
{
	static const char *const names[] = {"file",  "member",       "section",
	                                    "image", "bundle entry", "fatbinary entry"};
	return names[k];
}

/* ---- --check ------------------------------------------------------------- */

struct target {
	char triple[256];
	char tid[256];
	char arch[64]; /* a bare triple architecture */
};

static void copy_field(char *dst, size_t cap, const char *s, size_t len)
{
	snprintf(dst, cap, "%.*s", (int)len, s);
}

/* A leading offload kind ("hip-", "openmp-") names no architecture. */
static const char *skip_kind(const char *s)
{
	const char *dash = strchr(s, '-');
	if (dash && !ofl_triple_arch_known(s, (size_t)(dash - s), OFL_LLVM23))
		return dash + 1;
	return s;
}

static void parse_target(const char *s, struct target *t)
{
	memset(t, 0, sizeof *t);
	const char *dd = strstr(s, "--");
	if (dd) {
		const char *tr = skip_kind(s);
		if (tr > dd)
			tr = s;
		copy_field(t->triple, sizeof t->triple, tr, (size_t)(dd - tr));
		copy_field(t->tid, sizeof t->tid, dd + 2, strlen(dd + 2));
	} else if (strchr(s, '-') && !strchr(s, ':')) {
		copy_field(t->triple, sizeof t->triple, skip_kind(s), strlen(skip_kind(s)));
	} else if (ofl_triple_arch_known(s, strlen(s), OFL_LLVM23)) {
		copy_field(t->arch, sizeof t->arch, s, strlen(s));
	} else {
		copy_field(t->tid, sizeof t->tid, s, strlen(s));
	}
}

/* Field k (0 arch, 1 vendor, 2 os, 3 env) of a triple. */
static size_t triple_field(const char *t, int k, const char **p)
{
	for (; k > 0 && t; k--) {
		t = strchr(t, '-');
		t = t ? t + 1 : NULL;
	}
	*p = t ? t : "";
	return t ? strcspn(t, "-") : 0;
}

/* Architectures equal; every other field equal or left unknown on a side. */
static bool triples_fit(const char *a, const char *b)
{
	for (int k = 0; k < 4; k++) {
		const char *x, *y;
		size_t lx = triple_field(a, k, &x), ly = triple_field(b, k, &y);
		bool same = lx == ly && !memcmp(x, y, lx);
		bool unk = lx == 0 || ly == 0 || (lx == 7 && !memcmp(x, "unknown", 7)) ||
		           (ly == 7 && !memcmp(y, "unknown", 7));
		if (!same && (k == 0 || !unk))
			return false;
	}
	return true;
}

/* docs/formats.md §2.4 (b): same processor, and every feature the image names
 * the target names with the same sign. */
static bool tids_fit(const char *image, const char *want)
{
	struct ofl_target_id e = OFL_TARGET_ID_INIT, t = OFL_TARGET_ID_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	bool ok = !ofl_target_id_parse(image, &e, &err) && !ofl_target_id_parse(want, &t, &err) &&
	          !strcmp(e.processor, t.processor) && e.nfeatures <= t.nfeatures;
	for (size_t i = 0; ok && i < e.nfeatures; i++) {
		bool found = false;
		for (size_t j = 0; j < t.nfeatures; j++)
			if (!strcmp(e.features[i].name, t.features[j].name))
				found = e.features[i].sign == t.features[j].sign;
		ok = found;
	}
	ofl_target_id_release(&e);
	ofl_target_id_release(&t);
	return ok;
}

int ofl_node_match(const struct ofl_node *n, const char *want)
{
	struct target t;
	parse_target(want, &t);
	struct ofl_bundle_id id = OFL_BUNDLE_ID_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	const char *triple = n->triple ? n->triple : "", *tid = n->arch ? n->arch : "";
	if (n->kind == OFL_NODE_BUNDLE_ENTRY) {
		if (ofl_bundle_id_split(n->name, strlen(n->name), OFL_LLVM23, &id, &err))
			return 0;
		triple = id.triple;
		tid = id.target_id;
	}
	if (!strcmp(tid, "generic"))
		tid = "";
	const char *a;
	size_t alen = triple_field(triple, 0, &a);
	bool ok = true;
	if (t.arch[0])
		ok = alen == strlen(t.arch) && !memcmp(a, t.arch, alen);
	if (ok && t.triple[0])
		ok = triples_fit(triple, t.triple);
	/* An image for no processor suits a target named by its triple. */
	if (ok && t.tid[0])
		ok = tid[0] ? !strcmp(tid, t.tid) || tids_fit(tid, t.tid) : t.triple[0] != 0;
	int score = 0;
	if (ok)
		score = !strcmp(tid, t.tid) ? 2 : 1;
	ofl_bundle_id_release(&id);
	return score;
}
