/* clang-offload-bundler -unbundle -type=a: heterogeneous archives in, one
 * device-specific archive per target out (docs/formats.md §3). */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bundle_order.h"
#include "bundler_priv.h"
#include "internal.h"
#include "offlink/archive.h"
#include "offlink/io.h"

/* One output archive under construction. */
struct ar_out {
	size_t n, cap;
	struct ofl_ar_input *m;
};

/* Everything a member's entries may point into, kept until the outputs
 * are written. */
struct ar_state {
	struct ofl_file archive;
	struct ofl_archive ar;
	size_t nmembers;
	struct ofl_bundle *bundles; /* one per member */
	struct ofl_file *thin;      /* thin archives: the member files */
	struct ofl_buf strings;     /* list of malloc'ed names and host objects */
	struct ar_out *outs;        /* one per target */
};

static int keep(struct ar_state *s, void *p, struct ofl_error *err)
{
	if (!p)
		return OFL_NOMEM(err);
	if (ofl_buf_append(&s->strings, &p, sizeof p)) {
		free(p);
		return OFL_NOMEM(err);
	}
	return 0;
}

/* LLVM's name: stem(M) + "-" + ID + stem(M) + ext, with ':' made '_'; ext
 * is .bc for gfx targets, .cubin for sm_ targets, else M's extension. */
static char *member_name(const char *member, const char *id, const char *target_id)
{
	const char *base = strrchr(member, '/');
	base = base ? base + 1 : member;
	const char *dot = strrchr(base, '.');
	if (dot == base)
		dot = NULL;
	size_t stem = dot ? (size_t)(dot - base) : strlen(base);
	const char *ext = strstr(target_id, "gfx")   ? ".bc"
	                  : strstr(target_id, "sm_") ? ".cubin"
	                  : dot                      ? dot
	                                             : "";
	struct ofl_buf b = OFL_BUF_INIT;
	if (ofl_buf_printf(&b, "%.*s-%s%.*s%s", (int)stem, base, id, (int)stem, base, ext) ||
	    ofl_buf_append_zeros(&b, 1)) {
		ofl_buf_release(&b);
		return NULL;
	}
	for (size_t i = 0; i < b.len; i++)
		if (b.data[i] == ':')
			b.data[i] = '_';
	return (char *)ofl_buf_detach(&b, NULL);
}

static int out_append(struct ar_out *o, const char *name, const uint8_t *data, uint64_t size,
                      struct ofl_error *err)
{
	if (OFL_GROW(o->m, o->cap, o->n))
		return OFL_NOMEM(err);
	o->m[o->n++] = (struct ofl_ar_input){name, data, size};
	return 0;
}

/* A fat object's host entry is the object without its bundle sections. */
static int host_object(struct ar_state *s, const struct ofl_bundle *b, const uint8_t **data,
                       uint64_t *size, struct ofl_error *err)
{
	int fd = memfd_create("offlink-host", MFD_CLOEXEC);
	if (fd < 0)
		return ofl_error_errno(err, NULL, "memfd_create");
	int rc = ofl_bundle_object_strip(fd, b->data, b->size, err);
	off_t end = rc ? 0 : lseek(fd, 0, SEEK_END);
	uint8_t *p = ofl_malloc(end > 0 ? (size_t)end : 1);
	if (!rc && (!p || pread(fd, p, (size_t)end, 0) != end))
		rc = p ? ofl_error_errno(err, NULL, "cannot read host object") : OFL_NOMEM(err);
	close(fd);
	if (rc) {
		free(p);
		return rc;
	}
	*data = p;
	*size = (uint64_t)end;
	return keep(s, p, err);
}

static int check_member_conflicts(const struct ofl_bundler_options *o, const struct ofl_bundle *b,
                                  const char *member, struct ofl_error *err)
{
	struct ofl_bundle_id *ids = ofl_calloc(b->n ? b->n : 1, sizeof *ids);
	int rc = ids ? 0 : OFL_NOMEM(err);
	size_t n = 0;
	for (; !rc && n < b->n; n++)
		rc = ofl_bundle_id_split(b->entries[n].id, strlen(b->entries[n].id), o->dialect,
		                         &ids[n], err);
	char *x = NULL, *y = NULL;
	rc = rc ? rc : ofl_bl_find_conflict(ids, n, &x, &y, err);
	if (rc == 1)
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                   "conflicting TargetIDs [%s, %s] found in %s of %s", x, y, member,
		                   o->inputs[0]);
	free(x);
	free(y);
	for (size_t i = 0; ids && i < n; i++)
		ofl_bundle_id_release(&ids[i]);
	free(ids);
	return rc;
}

static int route_entry(const struct ofl_bundler_options *o, const struct targets *t,
                       struct ar_state *s, const struct ofl_bundle *b,
                       const struct ofl_bundle_entry *e, const char *member, struct ofl_error *err)
{
	struct ofl_bundle_id eid = OFL_BUNDLE_ID_INIT;
	int rc = ofl_bundle_id_split(e->id, strlen(e->id), o->dialect, &eid, err);
	const uint8_t *data = b->data + e->offset;
	uint64_t size = e->size;
	bool have_host = false;
	for (size_t i = 0; !rc && i < t->n; i++) {
		if (!ofl_bundle_id_compatible(&eid, &t->match[i], o->hip_openmp_compatible))
			continue;
		if (e->host_stub && !have_host) {
			rc = host_object(s, b, &data, &size, err);
			have_host = true;
		}
		char *name = rc ? NULL : member_name(member, e->id, eid.target_id);
		rc = rc ? rc : keep(s, name, err);
		rc = rc ? rc : out_append(&s->outs[i], name, data, size, err);
	}
	ofl_bundle_id_release(&eid);
	return rc;
}

static int member_bytes(struct ar_state *s, size_t k, const uint8_t **data, uint64_t *size,
                        struct ofl_error *err)
{
	const struct ofl_ar_member *m = &s->ar.members[k];
	if (!s->ar.thin) {
		*data = m->data;
		*size = m->size;
		return 0;
	}
	int rc = ofl_archive_open_thin(s->archive.path, m, &s->thin[k], err);
	*data = s->thin[k].data;
	*size = s->thin[k].size;
	return rc;
}

static int scan_member(const struct ofl_bundler_options *o, const struct targets *t,
                       struct ar_state *s, size_t k, struct ofl_error *err)
{
	static const struct ofl_file_type object = {"o", OFL_BH_OBJECT, NULL, false};
	const struct ofl_ar_member *m = &s->ar.members[k];
	const uint8_t *data = NULL;
	uint64_t size = 0;
	struct ofl_bundle *b = &s->bundles[k];
	int rc = member_bytes(s, k, &data, &size, err);
	if (rc)
		return rc;
	rc = ofl_bundle_read(b, data, (size_t)size, &object, err);
	if (!rc && o->check_input_archive && (rc = check_member_conflicts(o, b, m->name, err)))
		return rc;
	size_t *order = rc || !b->n ? NULL : ofl_calloc(b->n, sizeof *order);
	if (!rc && b->n)
		rc = order ? ofl_bl_entry_order(b, order, err) : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < b->n; i++)
		rc = route_entry(o, t, s, b, &b->entries[order[i]], m->name, err);
	free(order);
	/* the member's fault: its bundle, its entries, a fat object's host */
	if (rc && rc != OFL_ENOMEM) {
		ofl_error_prefix(err, "archive member '%s'", m->name);
		ofl_error_locate(err, s->archive.path, s->ar.thin ? 0 : m->data_offset);
	}
	return rc;
}

static int write_archives(const struct ofl_bundler_options *o, const struct targets *t,
                          struct ar_state *s, struct ofl_outset *set, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < t->n; i++) {
		const struct ar_out *a = &s->outs[i];
		if (!a->n && !o->allow_missing)
			return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
			                     "no compatible code object found for the target '%s' "
			                     "in heterogeneous archive library: %s",
			                     t->ids[i].str, o->inputs[0]);
		struct ofl_buf b = OFL_BUF_INIT;
		rc = ofl_archive_write_gnu(a->m, a->n, &b, err);
		rc = rc ? rc : ofl_outset_write_file(set, o->outputs[i], b.data, b.len, err);
		ofl_buf_release(&b);
	}
	return rc;
}

static void ar_state_release(struct ar_state *s, size_t ntargets)
{
	for (size_t i = 0; i < s->nmembers; i++) {
		ofl_bundle_release(&s->bundles[i]);
		ofl_file_close(&s->thin[i]);
	}
	for (size_t i = 0; s->outs && i < ntargets; i++)
		free(s->outs[i].m);
	for (size_t i = 0; i < s->strings.len / sizeof(void *); i++)
		free(((void **)s->strings.data)[i]);
	ofl_buf_release(&s->strings);
	free(s->bundles);
	free(s->thin);
	free(s->outs);
	ofl_archive_release(&s->ar);
	ofl_file_close(&s->archive);
}

int ofl_bl_unbundle_archive(const struct ofl_bundler_options *o, const struct targets *t,
                            struct ofl_outset *set, struct ofl_error *err)
{
	struct ar_state s = {OFL_FILE_INIT, OFL_ARCHIVE_INIT, 0, NULL, NULL, OFL_BUF_INIT, NULL};
	int rc = ofl_file_open(&s.archive, o->inputs[0], err);
	for (size_t i = 0; !rc && i < o->noutputs; i++)
		if (ofl_file_is(&s.archive, o->outputs[i]))
			rc = ofl_error_set(err, OFL_EINVAL, o->outputs[i], OFL_NO_OFFSET,
			                   "output file is also an input");
	if (!rc && !ofl_archive_is(s.archive.data, s.archive.size))
		rc = ofl_error_set(err, OFL_EFORMAT, s.archive.path, 0, "not an archive");
	if (!rc) {
		rc = ofl_archive_parse(s.archive.data, s.archive.size, &s.ar, err);
		ofl_error_locate(err, s.archive.path, 0);
	}
	if (!rc) {
		s.nmembers = s.ar.nmembers;
		s.bundles = ofl_calloc(s.nmembers ? s.nmembers : 1, sizeof *s.bundles);
		s.thin = ofl_calloc(s.nmembers ? s.nmembers : 1, sizeof *s.thin);
		s.outs = ofl_calloc(t->n ? t->n : 1, sizeof *s.outs);
		if (!s.bundles || !s.thin || !s.outs)
			rc = OFL_NOMEM(err);
		for (size_t i = 0; !rc && i < s.nmembers; i++) {
			s.thin[i] = (struct ofl_file)OFL_FILE_INIT;
			s.bundles[i] = (struct ofl_bundle)OFL_BUNDLE_INIT;
		}
	}
	for (size_t k = 0; !rc && k < s.nmembers; k++)
		rc = scan_member(o, t, &s, k, err);
	rc = rc ? rc : write_archives(o, t, &s, set, err);
	ar_state_release(&s, t->n);
	return rc;
}
