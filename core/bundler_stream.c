/* Unbundling a compressed bundle without holding it in memory: the CCOB is
 * inflated once, front to back, and each requested entry's bytes are
 * written to its output as they pass.  The reader refuses overlapping
 * entries, so in offset order one output at a time is open. */
#include <stdlib.h>

#include "bundler_priv.h"
#include "internal.h"
#include "offlink/ccob.h"

/* How much consumed input is given back at a time (see
 * ofl_file_done_before): few calls, little memory. */
#define DROP_STEP (8u << 20)

struct stream {
	const struct ofl_file *f;
	size_t stream_at;             /* where the compressed stream starts in f */
	size_t dropped;               /* bytes of f given back so far */
	const struct ofl_bl_route *r; /* sorted by offset */
	size_t n, next;               /* r[next] is the first not yet written */
	uint64_t pos;                 /* bundle bytes seen so far */
	struct ofl_out out;           /* r[next]'s output once opened */
	struct ofl_outset *set;
};

static int by_offset(const void *pa, const void *pb)
{
	const struct ofl_bl_route *a = pa, *b = pb;
	if (a->e->offset != b->e->offset)
		return a->e->offset < b->e->offset ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

/* Writes what p[0..n), the bundle bytes at s->pos, holds of the routes
 * from r[next] on; an entry ending in it is finished and staged. */
static int feed(struct stream *s, const uint8_t *p, size_t n, struct ofl_error *err)
{
	uint64_t end = s->pos + n;
	int rc = 0;
	while (!rc && s->next < s->n) {
		const struct ofl_bundle_entry *e = s->r[s->next].e;
		if (e->offset > end || (e->offset == end && e->size))
			break; /* starts in a later piece */
		if (s->out.fd < 0)
			rc = ofl_out_open(&s->out, s->r[s->next].path, err);
		uint64_t lo = e->offset > s->pos ? e->offset : s->pos;
		uint64_t hi = e->offset + e->size < end ? e->offset + e->size : end;
		if (!rc && hi > lo)
			rc = ofl_out_write(&s->out, p + (lo - s->pos), (size_t)(hi - lo), err);
		if (rc || e->offset + e->size > end)
			break; /* goes on in the next piece */
		rc = ofl_out_finish(&s->out, s->set, err);
		s->next++;
	}
	s->pos = end;
	return rc;
}

static int sink(void *ctx, const uint8_t *p, size_t n, size_t in_used, struct ofl_error *err)
{
	struct stream *s = ctx;
	size_t used = s->stream_at + in_used;
	if (used - s->dropped >= DROP_STEP) {
		ofl_file_done_before(s->f, used);
		s->dropped = used;
	}
	return feed(s, p, n, err);
}

int ofl_bl_unbundle_stream(const struct ofl_file *f, struct ofl_bl_route *r, size_t n,
                           struct ofl_outset *set, uint64_t *hash, struct ofl_error *err)
{
	struct ofl_ccob_header h;
	struct ofl_outset local = OFL_OUTSET_INIT;
	int rc = ofl_ccob_parse_header(f->data, f->size, &h, err);
	if (rc)
		return rc;
	qsort(r, n, sizeof *r, by_offset);
	struct stream s = {f, h.header_size, 0, r, n, 0, 0, OFL_OUT_INIT, set ? set : &local};
	rc = ofl_ccob_stream(f->data, f->size, sink, &s, hash, err);
	/* empty entries at the very end */
	rc = rc ? rc : feed(&s, NULL, 0, err);
	if (s.out.fd >= 0)
		ofl_out_abort(&s.out);
	if (set)
		return rc;
	if (rc) {
		ofl_outset_abort(&local);
		return rc;
	}
	return ofl_outset_commit(&local, err);
}
