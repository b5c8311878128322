/* Which device code a link takes (docs/design.md, "Archive members").
 *
 * Host rules first: the host link is replayed on the symbol tables with the
 * linker's own rules (objects always; an archive member when it defines a
 * symbol still undefined, -u ones included; archives of a group until
 * nothing changes; --whole-archive members always), so the device code of
 * exactly the members the host linker pulls is taken; a plugin's linker
 * tells what it loaded too (ofl_link_hint).  Then device rules, per group
 * of images: a member whose device code defines a symbol the taken device
 * code leaves undefined is taken too (ELF symbol tables, bitcode irsymtabs);
 * where an image has no symbols to read (bitcode older than LLVM 5),
 * every member with a compatible image is, as LLVM 22 does.  Members with
 * an image of an arch named by --offload-extract are always taken.
 * Every step is a worklist over hash sets: linear in the symbols read. */
#include <stdlib.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/elf.h"

/* A member waiting to be pulled because of sym. */
struct pending {
	size_t unit;
	char *sym;
};

struct resolver {
	struct ofl_link *l;
	struct ofl_symset syms;  /* value 1: defined, 0: undefined */
	struct ofl_symset index; /* archive symbol -> unit, for the archives in scope */
	struct pending *queue;
	size_t nqueue, capqueue;
};

static int enqueue(struct resolver *r, size_t unit, const char *sym)
{
	if (OFL_GROW(r->queue, r->capqueue, r->nqueue))
		return OFL_ENOMEM;
	r->queue[r->nqueue] = (struct pending){unit, ofl_strdup(sym)};
	return r->queue[r->nqueue++].sym ? 0 : OFL_ENOMEM;
}

static int note_symbol(void *ctx, const char *name, bool defined)
{
	struct resolver *r = ctx;
	struct ofl_symslot *s, *ix;
	bool added;
	if (ofl_symset_add(&r->syms, name, defined, &s, &added))
		return OFL_ENOMEM;
	if (defined) {
		s->value = 1;
		return 0;
	}
	if (!s->value && added && (ix = ofl_symset_find(&r->index, name)))
		return enqueue(r, ix->value, name);
	return 0;
}

/* 1 when the bytes have no symbols we can read. */
static int read_symbols(struct resolver *r, const uint8_t *d, size_t n, const char *name,
                        struct ofl_error *err)
{
	int rc = ofl_image_symbols(d, n, note_symbol, r, err);
	if (rc < 0)
		ofl_error_locate(err, name, 0);
	return rc;
}

/* Takes unit u into the host link; sym: the symbol it was pulled for. */
static int pull(struct resolver *r, size_t u, const char *why, const char *sym,
                struct ofl_error *err)
{
	struct link_unit *un = &r->l->units[u];
	if (un->taken)
		return 0;
	un->taken = true;
	un->why = why;
	if (un->nimages)
		ofl_link_logf(r->l, OFL_LOG_DECISION, "%s: device code taken: %s%s%s%s", un->name,
		              why, sym ? " for '" : "", sym ? sym : "", sym ? "'" : "");
	int rc = read_symbols(r, un->data, un->size, un->name, err);
	return rc > 0 ? 0 : rc; /* a host input without symbols defines nothing */
}

/* Index entry of an archive: remembered unless an earlier one has it. */
struct index_ctx {
	struct resolver *r;
	const struct link_file *f;
};

static int note_index(void *ctx, const char *name, uint64_t member_offset)
{
	struct index_ctx *c = ctx;
	const struct ofl_archive *ar = &c->f->ar;
	size_t lo = 0, hi = ar->nmembers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ar->members[mid].header_offset < member_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ar->nmembers || ar->members[lo].header_offset != member_offset)
		return 0; /* a stale index entry: the linker would fail on it */
	struct ofl_symslot *s;
	bool added;
	return ofl_symset_add(&c->r->index, name, (uint32_t)(c->f->first_unit + lo), &s, &added);
}

/* Members' defined symbols, for an archive without an index. */
struct member_ctx {
	struct resolver *r;
	size_t unit;
};

static int note_member_symbol(void *ctx, const char *name, bool defined)
{
	struct member_ctx *c = ctx;
	struct ofl_symslot *s;
	bool added;
	return defined ? ofl_symset_add(&c->r->index, name, (uint32_t)c->unit, &s, &added) : 0;
}

static int index_archive(struct resolver *r, const struct link_file *f, struct ofl_error *err)
{
	struct index_ctx c = {r, f};
	int rc = ofl_archive_index(f->f.data, f->f.size, note_index, &c, err);
	for (size_t u = f->first_unit; rc == 1 && u < f->first_unit + f->nunits; u++) {
		struct member_ctx m = {r, u};
		const struct link_unit *un = &r->l->units[u];
		int mrc = ofl_image_symbols(un->data, un->size, note_member_symbol, &m, err);
		if (mrc < 0) {
			ofl_error_locate(err, un->name, 0);
			return mrc;
		}
	}
	return rc < 0 ? rc : 0;
}

static int drain(struct resolver *r, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < r->nqueue; i++) {
		struct ofl_symslot *s = ofl_symset_find(&r->syms, r->queue[i].sym);
		if (!rc && s && !s->value)
			rc = pull(r, r->queue[i].unit, "the host link pulls it", r->queue[i].sym,
			          err);
		free(r->queue[i].sym);
	}
	r->nqueue = 0;
	return rc;
}

/* Archives [from, to) scanned together (one archive, or a group's). */
static int resolve_archives(struct resolver *r, size_t from, size_t to, struct ofl_error *err)
{
	int rc = 0;
	ofl_symset_release(&r->index);
	for (size_t i = from; !rc && i < to; i++)
		if (r->l->files[i].kind == FILE_ARCHIVE && !r->l->files[i].in.whole_archive)
			rc = index_archive(r, &r->l->files[i], err);
	for (size_t i = 0; !rc && i < r->index.cap; i++) {
		const struct ofl_symslot *ix = &r->index.slots[i];
		const struct ofl_symslot *s = ix->name ? ofl_symset_find(&r->syms, ix->name) : NULL;
		if (s && !s->value && enqueue(r, ix->value, ix->name))
			rc = OFL_NOMEM(err);
	}
	if (!rc)
		rc = drain(r, err);
	ofl_symset_release(&r->index);
	return rc;
}

/* One file outside the archive scans: objects, shared objects,
 * --whole-archive archives, and inputs the host linker already chose. */
static int add_file(struct resolver *r, size_t i, struct ofl_error *err)
{
	struct link_file *f = &r->l->files[i];
	int rc = 0;
	/* a shared object's undefined symbols are references: the member
	 * defining one is pulled, as for an object */
	if (f->kind == FILE_SHARED) {
		rc = ofl_elf_global_symbols(f->f.data, f->f.size, note_symbol, r, err);
		if (rc < 0)
			ofl_error_locate(err, f->in.path, 0);
		return rc;
	}
	if (f->kind == FILE_ARCHIVE && !f->in.whole_archive && !f->in.pulled)
		return 0;
	const char *why = f->in.pulled          ? "the host linker chose it"
	                  : f->in.whole_archive ? "--whole-archive"
	                                        : "an object of the link";
	for (size_t u = f->first_unit; !rc && u < f->first_unit + f->nunits; u++)
		rc = pull(r, u, why, NULL, err);
	return rc ? rc : drain(r, err);
}

/* Symbols the command line (-u, the entry point's -e) and its scripts (EXTERN) make
 * undefined: archive members are pulled for them as for an object's references. */
static int command_line_symbols(struct resolver *r, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = r->l->o.host_cmd;
	for (size_t i = 0; c && i < c->nargs; i++)
		if (c->args[i].opt == OFL_LD_UNDEFINED && note_symbol(r, c->args[i].value, false))
			return OFL_NOMEM(err);
	for (size_t i = 0; i < r->l->script_externs.n; i++)
		if (note_symbol(r, r->l->script_externs.v[i], false))
			return OFL_NOMEM(err);
	return 0;
}

static int host_rules(struct resolver *r, struct ofl_error *err)
{
	struct ofl_link *l = r->l;
	int rc = command_line_symbols(r, err);
	for (size_t i = 0; !rc && i < l->nfiles;) {
		size_t j = i + 1;
		if (l->files[i].in.group)
			while (j < l->nfiles && l->files[j].in.group == l->files[i].in.group)
				j++;
		for (size_t k = i; !rc && k < j; k++)
			rc = add_file(r, k, err);
		if (!rc)
			rc = resolve_archives(r, i, j, err);
		i = j;
	}
	/* what the host linker loaded, which its rules replayed here left
	 * out (a linker script's EXTERN, --defsym) */
	for (size_t u = 0; !rc && u < l->nunits; u++)
		if (l->units[u].chosen)
			rc = pull(r, u, "the host linker chose it", NULL, err);
	return rc;
}

bool ofl_link_extract_asked(const struct ofl_link *l, const char *arch)
{
	for (size_t i = 0; i < l->o.nextract_archs; i++)
		if (!strcmp(l->o.extract_archs[i], arch))
			return true;
	return false;
}

const struct link_image *ofl_group_image(const struct ofl_link *l, size_t gi, size_t k)
{
	const struct link_member *m = &l->members[l->groups[gi].first + k];
	return m->taken ? &l->images[m->image] : NULL;
}

/* The device code of one image is linked, for one group: taking a
 * member's gfx90a code says nothing about its gfx942 code, which that
 * group's own rules decide (LLVM 19 extracts image by image too). */
static void take_image(struct ofl_link *l, size_t g, size_t k, const char *why, const char *sym)
{
	struct link_member *m = &l->members[l->groups[g].first + k];
	const struct link_image *im = &l->images[m->image];
	const char *name = l->units[im->unit].name;
	m->taken = true;
	if (sym)
		ofl_link_logf(l, OFL_LOG_DECISION,
		              "%s: device code taken for device symbol '%s' (%s %s)", name, sym,
		              im->triple, im->arch);
	else
		ofl_link_logf(l, OFL_LOG_DECISION, "%s: device code taken: %s (%s %s)", name, why,
		              im->triple, im->arch);
}

/* The device rules of group g; the resolver's units are the group's
 * member positions. */
static int device_rules(struct ofl_link *l, size_t g, struct ofl_error *err)
{
	struct resolver r = {l, OFL_SYMSET_INIT, OFL_SYMSET_INIT, NULL, 0, 0};
	struct link_member *mem = l->members + l->groups[g].first;
	size_t n = l->groups[g].nall;
	bool known = true, used = false;
	int rc = 0;
	for (size_t k = 0; !rc && k < n; k++) {
		const struct link_image *im = &l->images[mem[k].image];
		if (ofl_link_extract_asked(l, im->arch) && !mem[k].taken)
			take_image(l, g, k, "--offload-extract", NULL);
		used = used || mem[k].taken;
		struct member_ctx m = {&r, k};
		rc = mem[k].taken ? read_symbols(&r, im->b.image, im->b.image_size,
		                                 l->units[im->unit].name, err)
		                  : ofl_image_symbols(im->b.image, im->b.image_size,
		                                      note_member_symbol, &m, err);
		known = known && rc != 1;
		if (rc < 0)
			ofl_error_locate(err, l->units[im->unit].name, 0);
		rc = rc == 1 ? 0 : rc;
	}
	for (size_t k = 0; !rc && used && !known && k < n; k++)
		if (!mem[k].taken)
			take_image(l, g, k, "a compatible image whose symbols are not readable",
			           NULL);
	/* the worklist: undefined device symbols defined by untaken images */
	for (size_t i = 0; !rc && known && used && i < r.syms.cap; i++) {
		const struct ofl_symslot *s = &r.syms.slots[i];
		const struct ofl_symslot *ix =
		    s->name && !s->value ? ofl_symset_find(&r.index, s->name) : NULL;
		if (ix && enqueue(&r, ix->value, s->name))
			rc = OFL_NOMEM(err);
	}
	for (size_t q = 0; q < r.nqueue; q++) {
		size_t k = r.queue[q].unit;
		const struct link_image *im = &l->images[mem[k].image];
		if (!rc && !mem[k].taken) {
			take_image(l, g, k,
			           "its device code defines a symbol the taken device code needs",
			           r.queue[q].sym);
			rc = read_symbols(&r, im->b.image, im->b.image_size,
			                  l->units[im->unit].name, err);
			rc = rc > 0 ? 0 : rc;
		}
		free(r.queue[q].sym);
	}
	free(r.queue);
	ofl_symset_release(&r.syms);
	ofl_symset_release(&r.index);
	return rc;
}

/* Requested archs (--offload-extract) that no image has: said, since a
 * typo there silently takes nothing. */
static void report_unmatched(struct ofl_link *l)
{
	for (size_t i = 0; i < l->o.nextract_archs; i++) {
		size_t k = 0;
		while (k < l->nimages && strcmp(l->images[k].arch, l->o.extract_archs[i]))
			k++;
		if (k == l->nimages)
			ofl_link_logf(l, OFL_LOG_WARNING,
			              "requested target '%s': no input has an image for it",
			              l->o.extract_archs[i]);
	}
}

/* A file the link added itself (the device runtime, when the inputs are
 * the host line's): one of its members per architecture. */
static bool added_by_link(const struct ofl_link *l, size_t file)
{
	return l->host_inputs && !l->files[file].host_arg;
}

/* The units whose device code is left out, each said; the link's own
 * files' members (44 architectures of a device runtime) in one line. */
static void report_left_out(struct ofl_link *l)
{
	for (size_t f = 0; f < l->nfiles; f++) {
		const struct link_file *lf = &l->files[f];
		size_t n = 0;
		for (size_t u = lf->first_unit; u < lf->first_unit + lf->nunits; u++) {
			const struct link_unit *un = &l->units[u];
			if (!un->nimages || un->device)
				continue;
			n++;
			if (!added_by_link(l, f))
				ofl_link_logf(
				    l, OFL_LOG_DECISION,
				    "%s: device code left out: the host link does not use it",
				    un->name);
		}
		if (n && added_by_link(l, f))
			ofl_link_logf(
			    l, OFL_LOG_DECISION,
			    "%s: device code of %zu member(s) left out: no device link needs it",
			    lf->in.path, n);
	}
}

int ofl_link_select(struct ofl_link *l, struct ofl_error *err)
{
	struct resolver r = {l, OFL_SYMSET_INIT, OFL_SYMSET_INIT, NULL, 0, 0};
	int rc = host_rules(&r, err);
	for (size_t i = 0; i < r.nqueue; i++)
		free(r.queue[i].sym);
	free(r.queue);
	ofl_symset_release(&r.syms);
	ofl_symset_release(&r.index);
	for (size_t g = 0; g < l->ngroups; g++)
		for (size_t k = 0; k < l->groups[g].nall; k++) {
			struct link_member *m = &l->members[l->groups[g].first + k];
			m->taken = l->units[l->images[m->image].unit].taken;
		}
	for (size_t g = 0; !rc && g < l->ngroups; g++)
		rc = device_rules(l, g, err);
	for (size_t g = 0; g < l->ngroups; g++)
		for (size_t k = 0; k < l->groups[g].nall; k++) {
			const struct link_image *im = ofl_group_image(l, g, k);
			if (im)
				l->units[im->unit].device = true;
		}
	report_left_out(l);
	report_unmatched(l);
	return rc;
}
