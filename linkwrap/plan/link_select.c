/* Which device code a link takes (docs/design.md, "Archive members").
 *
 * Host rules first: the host link is replayed on the symbol tables with the
 * linker's own rules (objects always; an archive member when it defines a
 * symbol still undefined, those the command line references included: -u,
 * -e, --defsym, --wrap, scripts' assignments; archives of a group until
 * nothing changes, then all of them so, as lld searches them;
 * --whole-archive members always), so the device code of
 * exactly the members the host linker pulls is taken; a plugin's linker
 * tells what it loaded too (ofl_link_hint).  Then device rules, per group
 * of images: a member whose device code defines a symbol the taken device
 * code leaves undefined is taken too (ELF symbol tables, bitcode irsymtabs);
 * where an image has no symbols to read (bitcode older than LLVM 5),
 * every member with a compatible image is, as LLVM 22 does.  Members with
 * an image of an arch named by --offload-extract are always taken.
 * Every step is a worklist over hash sets: linear in the symbols read. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/elf.h"
#include "offlink/ldscript.h"

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
	struct ofl_symset wraps; /* the symbols of --wrap */
	const char **globs;      /* the patterns of --undefined-glob */
	size_t nglobs, capglobs;
};

#define RESOLVER_INIT(l)                                                                           \
	{                                                                                          \
		l, OFL_SYMSET_INIT, OFL_SYMSET_INIT, NULL, 0, 0, OFL_SYMSET_INIT, NULL, 0, 0       \
	}

static void resolver_release(struct resolver *r)
{
	for (size_t i = 0; i < r->nqueue; i++)
		free(r->queue[i].sym);
	free(r->queue);
	free(r->globs);
	ofl_symset_release(&r->syms);
	ofl_symset_release(&r->index);
	ofl_symset_release(&r->wraps);
}

static int enqueue(struct resolver *r, size_t unit, const char *sym)
{
	if (OFL_GROW(r->queue, r->capqueue, r->nqueue))
		return OFL_ENOMEM;
	r->queue[r->nqueue] = (struct pending){unit, ofl_strdup(sym)};
	return r->queue[r->nqueue++].sym ? 0 : OFL_ENOMEM;
}

static bool globbed(const struct resolver *r, const char *name)
{
	for (size_t i = 0; i < r->nglobs; i++)
		if (!fnmatch(r->globs[i], name, 0))
			return true;
	return false;
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
	int rc = 0;
	if (!s->value && added && (ix = ofl_symset_find(&r->index, name)))
		rc = enqueue(r, ix->value, name);
	/* --wrap=S: a reference to __real_S is one to S (GNU ld and gold;
	 * lld pulls what defines __real_S itself, as above) */
	if (!rc && !strncmp(name, "__real_", 7) && ofl_symset_find(&r->wraps, name + 7))
		rc = note_symbol(r, name + 7, false);
	return rc;
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

/* The members queued, pulled for why (their symbols' queued in turn). */
static int drain(struct resolver *r, const char *why, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < r->nqueue; i++) {
		struct ofl_symslot *s = ofl_symset_find(&r->syms, r->queue[i].sym);
		if (!rc && s && !s->value)
			rc = pull(r, r->queue[i].unit, why, r->queue[i].sym, err);
		free(r->queue[i].sym);
	}
	r->nqueue = 0;
	return rc;
}

/* Archives [from, to) scanned together (one archive, a group's, or all of
 * them), their members pulled for why. */
static int resolve_archives(struct resolver *r, size_t from, size_t to, const char *why,
                            struct ofl_error *err)
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
	/* lld's --undefined-glob: the archives' symbols it matches (each
	 * new one is queued as it is noted) */
	for (size_t i = 0; !rc && r->nglobs && i < r->index.cap; i++)
		if (r->index.slots[i].name && globbed(r, r->index.slots[i].name) &&
		    note_symbol(r, r->index.slots[i].name, false))
			rc = OFL_NOMEM(err);
	if (!rc)
		rc = drain(r, why, err);
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
	return rc ? rc : drain(r, "the host link pulls it", err);
}

static int note_reference(void *ctx, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	char *s = ofl_strndup(name, len);
	int rc = s ? note_symbol(ctx, s, false) : OFL_ENOMEM;
	(void)kind;
	free(s);
	return rc;
}

/* What --wrap and --undefined-glob change, before any symbol is read. */
static int rewrites(struct resolver *r, const struct ofl_ldcmd *c, struct ofl_error *err)
{
	struct ofl_symslot *s;
	bool added;
	for (size_t i = 0; c && i < c->nargs; i++) {
		const struct ofl_ldarg *a = &c->args[i];
		if (a->opt == OFL_LD_WRAP && ofl_symset_add(&r->wraps, a->value, 0, &s, &added))
			return OFL_NOMEM(err);
		if (a->opt != OFL_LD_UNDEFINED_GLOB)
			continue;
		if (OFL_GROW(r->globs, r->capglobs, r->nglobs))
			return OFL_NOMEM(err);
		r->globs[r->nglobs++] = a->value;
	}
	return 0;
}

/* Symbols the command line and its scripts reference before any input,
 * which pull archive members as an object's references do (GNU ld, gold
 * and lld alike): -u and the entry point; --defsym's expression (its
 * symbol is not taken as defined: lld and a later ld still pull a member
 * defining it); __wrap_S for --wrap=S (lld pulls it whenever S is known;
 * GNU ld and gold when S is referenced); a script's EXTERN, ENTRY and
 * assignments. */
static int command_line_symbols(struct resolver *r, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = r->l->o.host_cmd;
	int rc = rewrites(r, c, err);
	for (size_t i = 0; !rc && c && i < c->nargs; i++) {
		const struct ofl_ldarg *a = &c->args[i];
		const char *eq = a->opt == OFL_LD_DEFSYM ? strchr(a->value, '=') : NULL;
		char *wrap = NULL;
		if (a->opt == OFL_LD_UNDEFINED)
			rc = note_symbol(r, a->value, false);
		else if (eq)
			rc = ofl_ldscript_expr_symbols(eq + 1, strlen(eq + 1), note_reference, r);
		else if (a->opt == OFL_LD_WRAP)
			rc = asprintf(&wrap, "__wrap_%s", a->value) < 0
			         ? OFL_ENOMEM
			         : note_symbol(r, wrap, false);
		free(wrap);
	}
	for (size_t i = 0; !rc && i < r->l->script_externs.n; i++)
		rc = note_symbol(r, r->l->script_externs.v[i], false);
	return rc ? OFL_NOMEM(err) : 0;
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
			rc = resolve_archives(r, i, j, "the host link pulls it", err);
		i = j;
	}
	/* lld searches every archive for what is still undefined, wherever it
	 * stands (GNU ld and gold only those after the reference, whose link
	 * then fails unless the symbol may stay undefined): their union */
	if (!rc)
		rc = resolve_archives(r, 0, l->nfiles,
		                      "lld pulls it (an archive before the reference)", err);
	/* what the host linker loaded, which its rules replayed here left
	 * out (a -T script's symbols) */
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
	struct resolver r = RESOLVER_INIT(l);
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
	r.nqueue = 0;
	resolver_release(&r);
	return rc;
}

/* The registration of the program's whole entry table of kind's device
 * code that a taken offlink wrap object makes, or NULL. */
static const struct link_registered *whole_registration(const struct ofl_link *l,
                                                        enum ofl_wrap_kind kind)
{
	for (size_t i = 0; i < l->nregistered; i++) {
		const struct link_registered *r = &l->registered[i];
		if (r->whole && l->units[r->unit].taken && ofl_wrap_kind_of(r->kind) == kind)
			return r;
	}
	return NULL;
}

/* The symbols the images of kind's whole registrations define (value 1);
 * 1 when none can be read. */
static int registered_symbols(const struct ofl_link *l, enum ofl_wrap_kind kind,
                              struct resolver *defs, struct ofl_error *err)
{
	bool known = false;
	for (size_t i = 0; i < l->nregistered; i++) {
		const struct link_registered *r = &l->registered[i];
		if (!r->whole || !r->image || !l->units[r->unit].taken ||
		    ofl_wrap_kind_of(r->kind) != kind)
			continue;
		int rc = read_symbols(defs, r->image, r->size, l->units[r->unit].name, err);
		if (rc < 0)
			return rc;
		known = known || rc == 0;
	}
	return known ? 0 : 1;
}

/* The first of a host object's offload entries whose symbol is not
 * defined (in defs). */
struct entries_check {
	const struct ofl_symset *defs;
	char *missing; /* owned */
};

static int check_entry(void *ctx, const char *name, bool defined)
{
	struct entries_check *c = ctx;
	const char *sym = defined && !c->missing ? ofl_entry_symbol(name) : NULL;
	const struct ofl_symslot *s = sym ? ofl_symset_find(c->defs, sym) : NULL;
	if (sym && !(s && s->value))
		return (c->missing = ofl_strdup(sym)) ? 0 : OFL_ENOMEM;
	return 0;
}

/* Unit u's device code, of a kind whose whole entry table w registers:
 * linked into w's images already when they define every entry of u's
 * (defs; unless their symbols are unreadable), else left out: an error. */
static int check_registered(struct ofl_link *l, size_t u, const struct link_registered *w,
                            const struct resolver *defs, bool unreadable, struct ofl_error *err)
{
	struct link_unit *un = &l->units[u];
	const char *by = l->units[w->unit].name;
	struct entries_check c = {&defs->syms, NULL};
	int rc = unreadable ? 0 : ofl_image_symbols(un->data, un->size, check_entry, &c, err);
	if (rc < 0)
		ofl_error_locate(err, un->name, 0);
	else if (unreadable)
		rc = ofl_error_set(
		    err, OFL_EINVAL, un->name, OFL_NO_OFFSET,
		    "device code not known to be registered by %s (offlink wrap's "
		    "object, which registers the whole program's): the symbols of its "
		    "images cannot be read; link without %s",
		    by, by);
	else if (c.missing)
		rc = ofl_error_set(
		    err, OFL_EINVAL, un->name, OFL_NO_OFFSET,
		    "device code not registered by %s (offlink wrap's object, which "
		    "registers the whole program's): its images lack entry '%s'; wrap "
		    "an image linked with this object's device code too, or link "
		    "without %s",
		    by, c.missing, by);
	else {
		rc = 0;
		un->registered_by = by;
		ofl_link_logf(l, OFL_LOG_DECISION,
		              "%s: device code registered already by %s: not linked again",
		              un->name, by);
	}
	free(c.missing);
	return rc;
}

/* Groups whose kind an offlink wrap object registers whole: its
 * registration spans every object's entries (__start_/__stop_ of the
 * entry section), so their device code is never linked again (a second
 * registration of the same entries), and a taken object whose entries its
 * images lack can be registered by nothing: an error names it. */
static int registered_already(struct ofl_link *l, bool *skip, struct ofl_error *err)
{
	int rc = 0;
	for (size_t g = 0; !rc && g < l->ngroups; g++) {
		enum ofl_wrap_kind kind = ofl_wrap_kind_of(l->groups[g].kind);
		const struct link_registered *w = whole_registration(l, kind);
		struct resolver defs = RESOLVER_INIT(l);
		int unreadable = w ? registered_symbols(l, kind, &defs, err) : 0;
		rc = unreadable < 0 ? unreadable : 0;
		for (size_t k = 0; w && !rc && k < l->groups[g].nall; k++) {
			struct link_member *m = &l->members[l->groups[g].first + k];
			size_t u = l->images[m->image].unit;
			if (m->taken && !l->units[u].registered_by)
				rc = check_registered(l, u, w, &defs, unreadable == 1, err);
			m->taken = false;
		}
		skip[g] = w != NULL;
		resolver_release(&defs);
	}
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
			if (!un->nimages || un->device || un->registered_by)
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
	struct resolver r = RESOLVER_INIT(l);
	int rc = host_rules(&r, err);
	resolver_release(&r);
	for (size_t g = 0; g < l->ngroups; g++)
		for (size_t k = 0; k < l->groups[g].nall; k++) {
			struct link_member *m = &l->members[l->groups[g].first + k];
			m->taken = l->units[l->images[m->image].unit].taken;
		}
	bool *skip = ofl_calloc(l->ngroups + 1, sizeof(*skip));
	rc = rc ? rc : skip ? registered_already(l, skip, err) : OFL_NOMEM(err);
	for (size_t g = 0; !rc && g < l->ngroups; g++)
		rc = skip[g] ? 0 : device_rules(l, g, err);
	free(skip);
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
