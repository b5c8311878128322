/* clang-offload-bundler's three operations over the container modules.
 * Behaviour follows docs/formats.md §1.5-1.8 and §3; where LLVM crashes or writes
 * a corrupt file we report an error instead. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bundle_order.h"
#include "bundler_priv.h"
#include "internal.h"
#include "offlink/bundle.h"
#include "offlink/bundler.h"
#include "offlink/io.h"

static void targets_release(struct targets *t)
{
	for (size_t i = 0; i < t->n; i++) {
		ofl_bundle_id_release(&t->ids[i]);
		ofl_bundle_id_release(&t->match[i]);
	}
	free(t->ids);
	free(t->match);
	free(t->order);
	*t = (struct targets){0, NULL, NULL, NULL};
}

static int targets_parse(const struct ofl_bundler_options *o, struct targets *t,
                         struct ofl_error *err)
{
	t->ids = ofl_calloc(o->ntargets, sizeof *t->ids);
	t->match = ofl_calloc(o->ntargets, sizeof *t->match);
	t->order = ofl_calloc(o->ntargets, sizeof *t->order);
	char **strs = ofl_calloc(o->ntargets, sizeof *strs);
	if (!t->ids || !t->match || !t->order || !strs) {
		free(strs);
		return OFL_NOMEM(err);
	}
	int rc = 0;
	for (size_t i = 0; i < o->ntargets && !rc; i++) {
		t->n = i + 1;
		rc = ofl_bundle_id_parse(o->targets[i], o->dialect, &t->ids[i], err);
		strs[i] = t->ids[i].str;
		if (!rc)
			rc = ofl_bundle_id_split(strs[i], strlen(strs[i]), o->dialect, &t->match[i],
			                         err);
	}
	if (!rc)
		rc = ofl_bl_hash_order(strs, t->n, t->order, err);
	free(strs);
	return rc;
}

static size_t count_hosts(const struct targets *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += ofl_bundle_id_is_host(&t->ids[i]);
	return n;
}

static bool is_hip_kind(const char *k)
{
	return !strcmp(k, "hip") || !strcmp(k, "hipv4");
}

static int check_conflicts(const struct ofl_bundler_options *o, const struct targets *t,
                           struct ofl_error *err)
{
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t->ids[i].str, t->ids[j].str))
				return ofl_error_set(
				    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
				    "targets '%s' and '%s' name the same bundle entry '%s'",
				    o->targets[j], o->targets[i], t->ids[i].str);
	/* LLVM crashes on a malformed feature list; we say what is wrong */
	for (size_t i = 0; i < t->n; i++) {
		struct ofl_target_id tid = OFL_TARGET_ID_INIT;
		int prc = t->ids[i].target_id[0]
		              ? ofl_target_id_parse(t->ids[i].target_id, &tid, err)
		              : 0;
		ofl_target_id_release(&tid);
		if (prc) {
			ofl_error_prefix(err, "invalid target '%s'", o->targets[i]);
			return prc;
		}
	}
	char *a = NULL, *b = NULL;
	int rc = ofl_bl_find_conflict(t->ids, t->n, &a, &b, err);
	if (rc == 1)
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "Cannot bundle inputs with conflicting targets: '%s' and '%s'",
		                   a, b);
	free(a);
	free(b);
	return rc;
}

/* Checks shared by every operation: the -targets list itself. */
static int validate_targets(const struct ofl_bundler_options *o, struct ofl_error *err)
{
	for (size_t i = 0; i < o->ntargets; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->targets[i], o->targets[j]))
				return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
				                     "Duplicate targets are not allowed");
	return 0;
}

static const struct ofl_file_type *lookup_type(const struct ofl_bundler_options *o,
                                               struct ofl_error *err)
{
	const struct ofl_file_type *t = o->type ? ofl_file_type_find(o->type) : NULL;
	if (!t)
		ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		              "'%s': invalid file type specified", o->type ? o->type : "");
	return t;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- bundling ---- */

struct inputs {
	size_t n;
	struct ofl_file *f;
};

static void inputs_close(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		ofl_file_close(&in->f[i]);
	free(in->f);
	in->f = NULL;
	in->n = 0;
}

static int inputs_open(const char *const *paths, size_t n, const char *const *outs, size_t nouts,
                       struct inputs *in, struct ofl_error *err)
{
	in->f = ofl_calloc(n, sizeof *in->f);
	if (!in->f)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++) {
		int rc = ofl_file_open(&in->f[i], paths[i], err);
		in->n = i + 1;
		if (rc)
			return rc;
		for (size_t k = 0; k < nouts; k++)
			if (ofl_file_is(&in->f[i], outs[k]))
				return ofl_error_set(err, OFL_EINVAL, outs[k], OFL_NO_OFFSET,
				                     "output file is also an input");
	}
	return 0;
}

/* Compresses the assembled bundle b into a CCOB and writes it; rep (if any)
 * learns the sizes and the codec's time. */
static int write_compressed(const struct ofl_bundler_options *o, const struct ofl_buf *b,
                            struct ofl_bundler_report *rep, struct ofl_error *err)
{
	struct ofl_buf z = OFL_BUF_INIT;
	double t0 = now();
	int rc = ofl_ccob_compress(b->data, b->len, &o->ccob, &z, err);
	if (!rc && rep) {
		rep->compressed = true;
		rep->raw_size = b->len;
		rep->seconds = now() - t0;
		ofl_ccob_parse_header(z.data, z.len, &rep->ccob, NULL);
	}
	rc = rc ? rc : ofl_write_file(o->outputs[0], z.data, z.len, err);
	ofl_buf_release(&z);
	return rc;
}

static int write_binary(const struct ofl_bundler_options *o, const struct targets *t,
                        const struct inputs *in, struct ofl_bundler_report *rep,
                        struct ofl_error *err)
{
	const char **ids = ofl_calloc(t->n, sizeof *ids);
	uint64_t *sizes = ofl_calloc(t->n, sizeof *sizes);
	uint64_t *offs = ofl_calloc(t->n, sizeof *offs);
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_out out = OFL_OUT_INIT;
	int rc = ids && sizes && offs ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < t->n; i++) {
		ids[i] = t->ids[i].str;
		sizes[i] = in->f[i].size;
	}
	if (!rc)
		rc = ofl_bundle_write_header(ids, sizes, t->n, o->align, &b, offs, err);
	if (!rc && o->compress) {
		/* CCOB compresses the whole bundle, so it is assembled in memory,
		 * in one allocation of the final size */
		uint64_t total = t->n ? offs[t->n - 1] + sizes[t->n - 1] : b.len;
		if (total > SIZE_MAX || ofl_buf_reserve(&b, (size_t)(total - b.len)))
			rc = OFL_NOMEM(err);
		for (size_t i = 0; !rc && i < t->n; i++)
			if (ofl_buf_append_zeros(&b, (size_t)(offs[i] - b.len)) ||
			    ofl_buf_append(&b, in->f[i].data, in->f[i].size))
				rc = OFL_NOMEM(err);
		rc = rc ? rc : write_compressed(o, &b, rep, err);
		goto done;
	}
	rc = rc ? rc : ofl_out_open(&out, o->outputs[0], err);
	rc = rc ? rc : ofl_out_write(&out, b.data, b.len, err);
	for (size_t i = 0; !rc && i < t->n; i++) {
		rc = ofl_out_zeros(&out, offs[i] - out.written, err);
		rc = rc ? rc : ofl_out_copy(&out, &in->f[i], 0, in->f[i].size, err);
	}
	rc = rc ? rc : ofl_out_commit(&out, err);
	if (rc)
		ofl_out_abort(&out);
done:
	free(ids);
	free(sizes);
	free(offs);
	ofl_buf_release(&b);
	return rc;
}

/* Uncompressed: markers from a small buffer, bodies copied from their
 * files, nothing of the size of the inputs in memory. */
static int stream_text(const struct ofl_bundler_options *o, const struct ofl_file_type *type,
                       const struct targets *t, const struct inputs *in, struct ofl_error *err)
{
	struct ofl_out out = OFL_OUT_INIT;
	struct ofl_buf m = OFL_BUF_INIT;
	int rc = ofl_out_open(&out, o->outputs[0], err);
	for (size_t i = 0; !rc && i < t->n; i++) {
		const char *id = t->ids[i].str;
		m.len = 0;
		rc = ofl_bundle_text_start(&m, type->comment, id) ? OFL_NOMEM(err) : 0;
		rc = rc ? rc : ofl_out_write(&out, m.data, m.len, err);
		rc = rc ? rc : ofl_out_copy(&out, &in->f[i], 0, in->f[i].size, err);
		m.len = 0;
		rc = rc ? rc : (ofl_bundle_text_end(&m, type->comment, id) ? OFL_NOMEM(err) : 0);
		rc = rc ? rc : ofl_out_write(&out, m.data, m.len, err);
	}
	rc = rc ? rc : ofl_out_commit(&out, err);
	if (rc)
		ofl_out_abort(&out);
	ofl_buf_release(&m);
	return rc;
}

static int write_text(const struct ofl_bundler_options *o, const struct ofl_file_type *type,
                      const struct targets *t, const struct inputs *in,
                      struct ofl_bundler_report *rep, struct ofl_error *err)
{
	if (!o->compress)
		return stream_text(o, type, t, in, err);
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; !rc && i < t->n; i++) {
		if (ofl_bundle_text_start(&b, type->comment, t->ids[i].str) ||
		    ofl_buf_append(&b, in->f[i].data, in->f[i].size) ||
		    ofl_bundle_text_end(&b, type->comment, t->ids[i].str))
			rc = OFL_NOMEM(err);
	}
	rc = rc ? rc : write_compressed(o, &b, rep, err);
	ofl_buf_release(&b);
	return rc;
}

/* The host entry of a fat object is a single zero byte; the host object
 * (or, without a host, the first input) carries the sections. */
static int write_object(const struct ofl_bundler_options *o, const struct targets *t,
                        const struct inputs *in, size_t host, size_t base, struct ofl_error *err)
{
	static const uint8_t host_stub[1] = {0};
	const char **ids = ofl_calloc(t->n, sizeof *ids);
	const uint8_t **datas = ofl_calloc(t->n, sizeof *datas);
	uint64_t *sizes = ofl_calloc(t->n, sizeof *sizes);
	struct ofl_out out = OFL_OUT_INIT;
	int rc = ids && datas && sizes ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < t->n; i++) {
		ids[i] = t->ids[i].str;
		datas[i] = i == host ? host_stub : in->f[i].data;
		sizes[i] = i == host ? 1 : in->f[i].size;
	}
	if (!rc && !strcmp(o->outputs[0], "-"))
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "a fat object cannot be written to standard output");
	rc = rc ? rc : ofl_out_open(&out, o->outputs[0], err);
	if (!rc) {
		rc = ofl_bundle_object_write(out.fd, in->f[base].data, in->f[base].size, ids, datas,
		                             sizes, t->n, err);
		ofl_error_locate(err, in->f[base].path, 0);
		rc = rc ? rc : ofl_out_commit(&out, err);
		if (rc)
			ofl_out_abort(&out);
	}
	free(ids);
	free(datas);
	free(sizes);
	return rc;
}

static int check_bundle_args(const struct ofl_bundler_options *o, const struct ofl_file_type *type,
                             struct ofl_error *err)
{
	if (type->archive)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "Archive files are only supported for unbundling");
	if (o->noutputs != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "only one output file supported in bundling mode");
	if (o->ninputs != o->ntargets)
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "number of input files and targets should match in bundling mode");
	return validate_targets(o, err);
}

static int check_hosts(const struct targets *t, struct ofl_error *err)
{
	bool all_hip = true;
	for (size_t i = 0; i < t->n; i++)
		all_hip = all_hip && is_hip_kind(t->ids[i].kind);
	size_t hosts = count_hosts(t);
	if (!all_hip && hosts != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "expecting exactly one host target but got %zu", hosts);
	return 0;
}

int ofl_bundler_bundle(const struct ofl_bundler_options *o, struct ofl_bundler_report *rep,
                       struct ofl_error *err)
{
	const struct ofl_file_type *type = lookup_type(o, err);
	if (!type)
		return OFL_EINVAL;
	int rc = check_bundle_args(o, type, err);
	if (rc)
		return rc;
	struct targets t = {0, NULL, NULL, NULL};
	struct inputs in = {0, NULL};
	rc = targets_parse(o, &t, err);
	rc = rc ? rc : check_hosts(&t, err);
	rc = rc ? rc : check_conflicts(o, &t, err);
	rc = rc ? rc : inputs_open(o->inputs, o->ninputs, o->outputs, 1, &in, err);
	if (!rc) {
		/* the handler follows the host input, or the first one when there
		 * is no host (HIP) */
		size_t host = SIZE_MAX, probe = 0;
		for (size_t i = 0; i < t.n; i++)
			if (ofl_bundle_id_is_host(&t.ids[i]))
				host = probe = i;
		if (type->handler == OFL_BH_TEXT)
			rc = write_text(o, type, &t, &in, rep, err);
		else if (type->handler == OFL_BH_OBJECT &&
		         ofl_bundle_is_object(in.f[probe].data, in.f[probe].size))
			rc = write_object(o, &t, &in, host, probe, err);
		else
			rc = write_binary(o, &t, &in, rep, err);
	}
	inputs_close(&in);
	targets_release(&t);
	return rc;
}

/* ---- reading ---- */

/* Fills rep for a compressed input of raw bundle bytes inflated in
 * seconds; hash, when asked for, is their MD5. */
static void report_ccob(struct ofl_bundler_report *rep, const struct ofl_file *f, size_t raw,
                        double seconds, uint64_t hash)
{
	rep->compressed = true;
	rep->seconds = seconds;
	rep->raw_size = raw;
	ofl_ccob_parse_header(f->data, f->size, &rep->ccob, NULL);
	if (rep->want_hash) {
		rep->hash = hash;
		rep->hash_ok = rep->hash == rep->ccob.hash;
	}
}

static int read_input(const struct ofl_file_type *type, const struct ofl_file *f,
                      struct ofl_bundle *b, struct ofl_bundler_report *rep, struct ofl_error *err)
{
	double t0 = now();
	int rc = ofl_bundle_read(b, f->data, f->size, type, err);
	if (rc) {
		ofl_error_locate(err, f->path, 0);
		return rc;
	}
	if (rep && b->compressed) {
		double seconds = now() - t0;
		report_ccob(rep, f, b->size, seconds,
		            rep->want_hash ? ofl_ccob_hash(b->data, b->size) : 0);
	}
	return 0;
}

int ofl_bundler_list(const struct ofl_bundler_options *o, char ***ids, size_t *n, bool *found,
                     struct ofl_bundler_report *rep, struct ofl_error *err)
{
	*ids = NULL;
	*n = 0;
	*found = false;
	const struct ofl_file_type *type = lookup_type(o, err);
	if (!type)
		return OFL_EINVAL;
	if (o->ninputs != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "only one input file supported for -list");
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_bundle b = OFL_BUNDLE_INIT;
	size_t *order = NULL;
	bool complete = false;
	int rc = ofl_file_open(&f, o->inputs[0], err);
	/* listing a compressed bundle needs only its header inflated */
	if (!rc && type->handler != OFL_BH_TEXT && ofl_ccob_is(f.data, f.size) &&
	    !(rep && rep->want_hash)) {
		rc = ofl_bundle_read_header_only(&b, f.data, f.size, &complete, err);
		ofl_error_locate(err, f.path, 0);
	}
	if (!rc && !complete) {
		ofl_bundle_release(&b);
		rc = read_input(type, &f, &b, rep, err);
	}
	if (!rc && b.n) {
		order = ofl_calloc(b.n, sizeof *order);
		*ids = ofl_calloc(b.n, sizeof **ids);
		rc = order && *ids ? ofl_bl_entry_order(&b, order, err) : OFL_NOMEM(err);
	}
	for (size_t i = 0; !rc && i < b.n; i++) {
		(*ids)[i] = b.entries[order[i]].id;
		b.entries[order[i]].id = NULL; /* ownership moves to the list */
		*n = i + 1;
	}
	*found = b.found;
	free(order);
	ofl_bundle_release(&b);
	ofl_file_close(&f);
	return rc;
}

void ofl_bundler_list_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* ---- unbundling ---- */

/* "Can't find bundles for A, B, and C": normalized IDs, sorted bytewise. */
static int missing_error(const struct targets *t, const bool *served, struct ofl_error *err)
{
	const char **names = ofl_calloc(t->n, sizeof *names);
	if (!names)
		return OFL_NOMEM(err);
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!served[i])
			names[k++] = t->ids[i].str;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *x = names[j];
			names[j] = names[j - 1];
			names[j - 1] = x;
		}
	struct ofl_buf m = OFL_BUF_INIT;
	for (size_t i = 0; i < k; i++) {
		const char *sep = i == 0 ? "" : k == 2 ? " and " : i + 1 == k ? ", and " : ", ";
		ofl_buf_printf(&m, "%s%s", sep, names[i]);
	}
	int rc =
	    ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET, "Can't find bundles for %.*s",
	                  (int)m.len, m.data ? (const char *)m.data : "");
	ofl_buf_release(&m);
	free(names);
	return rc;
}

/* Writes entry bytes; the host stub of a fat object stands for the host
 * object without its bundle sections. */
static int write_entry(const char *path, const struct ofl_file *src, const struct ofl_bundle *b,
                       const struct ofl_bundle_entry *e, struct ofl_outset *set,
                       struct ofl_error *err)
{
	struct ofl_out out;
	int rc = ofl_out_open(&out, path, err);
	if (rc)
		return rc;
	if (e->host_stub) {
		rc = ofl_bundle_object_strip(out.fd, b->data, b->size, err);
		ofl_error_locate(err, src->path, 0); /* the fat object's fault */
	} else if (!b->compressed)
		rc = ofl_out_copy(&out, src, e->offset, e->size, err);
	else
		rc = ofl_out_write(&out, b->data + e->offset, (size_t)e->size, err);
	if (rc) {
		ofl_out_abort(&out);
		return rc;
	}
	return ofl_out_finish(&out, set, err);
}

static int unbundle_missing(const struct ofl_bundler_options *o, const struct targets *t,
                            const bool *served, const struct ofl_bundle *b, struct ofl_outset *set,
                            struct ofl_error *err)
{
	bool any = false;
	for (size_t i = 0; i < t->n; i++)
		any = any || !served[i];
	if (!any)
		return 0;
	if (!o->allow_missing)
		return missing_error(t, served, err);
	/* Not a bundle at all: the host output gets the whole input */
	for (size_t i = 0; i < t->n; i++) {
		if (served[i])
			continue;
		bool copy = !b->found && ofl_bundle_id_is_host(&t->ids[i]);
		int rc = ofl_outset_write_file(set, o->outputs[i], copy ? b->data : NULL,
		                               copy ? b->size : 0, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Which output each entry goes to, in the order LLVM visits entries and
 * targets: r[0..*nr) (r has room for b->n). */
static int route_entries(const struct ofl_bundler_options *o, const struct targets *t,
                         const struct ofl_bundle *b, bool *served, struct ofl_bl_route *r,
                         size_t *nr, struct ofl_error *err)
{
	size_t *order = ofl_calloc(b->n, sizeof *order);
	int rc = order ? ofl_bl_entry_order(b, order, err) : OFL_NOMEM(err);
	for (size_t k = 0; !rc && k < b->n; k++) {
		const struct ofl_bundle_entry *e = &b->entries[order[k]];
		struct ofl_bundle_id eid = OFL_BUNDLE_ID_INIT;
		rc = ofl_bundle_id_split(e->id, strlen(e->id), o->dialect, &eid, err);
		for (size_t q = 0; !rc && q < t->n; q++) {
			size_t i = t->order[q];
			if (served[i] ||
			    !ofl_bundle_id_compatible(&eid, &t->match[i], o->hip_openmp_compatible))
				continue;
			r[(*nr)++] = (struct ofl_bl_route){e, o->outputs[i]};
			served[i] = true;
			break;
		}
		ofl_bundle_id_release(&eid);
	}
	free(order);
	return rc;
}

/* The entries of a bundle whose header alone was read, written as it is
 * inflated; rep learns what read_input would have told it. */
static int stream_entries(const struct ofl_file *f, struct ofl_bl_route *r, size_t nr,
                          struct ofl_outset *set, struct ofl_bundler_report *rep,
                          struct ofl_error *err)
{
	double t0 = now();
	uint64_t hash = 0;
	struct ofl_ccob_header h;
	int rc = ofl_bl_unbundle_stream(f, r, nr, set, rep && rep->want_hash ? &hash : NULL, err);
	ofl_error_locate(err, f->path, 0);
	if (!rc && rep && !ofl_ccob_parse_header(f->data, f->size, &h, NULL))
		report_ccob(rep, f, (size_t)h.raw_size, now() - t0, hash);
	return rc;
}

/* Writes the entries: from memory in LLVM's order, or streamed when only
 * the header of a compressed bundle was read. */
static int write_entries(const struct ofl_bundler_options *o, const struct targets *t,
                         const struct ofl_file *f, const struct ofl_bundle *b, bool header_only,
                         bool *served, struct ofl_outset *set, struct ofl_bundler_report *rep,
                         struct ofl_error *err)
{
	struct ofl_bl_route *r = ofl_calloc(b->n ? b->n : 1, sizeof *r);
	size_t nr = 0;
	int rc = r ? route_entries(o, t, b, served, r, &nr, err) : OFL_NOMEM(err);
	if (!rc && header_only)
		rc = stream_entries(f, r, nr, set, rep, err);
	for (size_t k = 0; !rc && !header_only && k < nr; k++)
		rc = write_entry(r[k].path, f, b, r[k].e, set, err);
	free(r);
	return rc;
}

/* Commits the staged outputs after success, removes them after an error. */
static int finish_outputs(struct ofl_outset *set, int rc, struct ofl_error *err)
{
	if (!set)
		return rc;
	if (rc) {
		ofl_outset_abort(set);
		return rc;
	}
	return ofl_outset_commit(set, err);
}

static bool any_to_stdout(const struct ofl_bundler_options *o)
{
	for (size_t i = 0; i < o->noutputs; i++)
		if (!strcmp(o->outputs[i], "-"))
			return true;
	return false;
}

/* A single compressed binary bundle is read only up to the end of its
 * header (*header_only) and streamed later, so memory does not grow with
 * it; not when an output is standard output, which a damaged stream found
 * later could not take back.  Anything else, and any error on the way
 * (whose wording the full reader owns), is read whole. */
static int read_bundle(const struct ofl_bundler_options *o, const struct ofl_file_type *type,
                       const struct ofl_file *f, struct ofl_bundle *b, bool *header_only,
                       struct ofl_bundler_report *rep, struct ofl_error *err)
{
	*header_only = false;
	if (type->handler != OFL_BH_TEXT && ofl_ccob_is(f->data, f->size) && !any_to_stdout(o)) {
		struct ofl_error ignored = OFL_ERROR_INIT;
		if (!ofl_bundle_read_header_only(b, f->data, f->size, header_only, &ignored) &&
		    *header_only)
			return 0;
		ofl_bundle_release(b);
		*header_only = false;
	}
	return read_input(type, f, b, rep, err);
}

static int check_unbundle_args(const struct ofl_bundler_options *o,
                               const struct ofl_file_type *type, struct ofl_error *err)
{
	if (o->check_input_archive && !type->archive)
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "-check-input-archive can only be used for unbundling archives (-type=a)");
	if (o->ninputs != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "only one input file supported in unbundling mode");
	if (o->noutputs != o->ntargets)
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "number of output files and targets should match in unbundling mode");
	return validate_targets(o, err);
}

int ofl_bundler_unbundle(const struct ofl_bundler_options *o, struct ofl_bundler_report *rep,
                         struct ofl_error *err)
{
	const struct ofl_file_type *type = lookup_type(o, err);
	if (!type)
		return OFL_EINVAL;
	int rc = check_unbundle_args(o, type, err);
	if (rc)
		return rc;
	struct targets t = {0, NULL, NULL, NULL};
	rc = targets_parse(o, &t, err);
	if (!rc && count_hosts(&t) > 1)
		rc =
		    ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                  "expecting at most one host target but got %zu", count_hosts(&t));
	/* LLVM keeps the outputs written before an error; all_or_nothing
	 * stages them and renames them together at the end. */
	struct ofl_outset staged = OFL_OUTSET_INIT, *set = o->all_or_nothing ? &staged : NULL;
	if (!rc && type->archive) {
		rc = ofl_bl_unbundle_archive(o, &t, set, err);
		targets_release(&t);
		return finish_outputs(set, rc, err);
	}
	struct inputs in = {0, NULL};
	struct ofl_bundle b = OFL_BUNDLE_INIT;
	bool *served = ofl_calloc(t.n ? t.n : 1, sizeof *served);
	rc = rc ? rc : served ? 0 : OFL_NOMEM(err);
	rc = rc ? rc : inputs_open(o->inputs, 1, o->outputs, o->noutputs, &in, err);
	bool header_only = false;
	rc = rc ? rc : read_bundle(o, type, &in.f[0], &b, &header_only, rep, err);
	rc = rc ? rc : write_entries(o, &t, &in.f[0], &b, header_only, served, set, rep, err);
	rc = rc ? rc : unbundle_missing(o, &t, served, &b, set, err);
	free(served);
	ofl_bundle_release(&b);
	inputs_close(&in);
	targets_release(&t);
	return finish_outputs(set, rc, err);
}
