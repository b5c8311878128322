/* The order in which clang-offload-bundler visits bundle entries and
 * targets, and target-ID conflicts among entries: shared by the bundler's
 * operations (bundler.c) and -type=a (bundler_archive.c). */
#include <stdlib.h>

#include "bundle_order.h"
#include "internal.h"

int ofl_bl_hash_order(char *const *strs, size_t n, size_t *order, struct ofl_error *err)
{
	size_t *lens = ofl_calloc(n, sizeof *lens);
	if (!lens)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(strs[i]);
	int rc = ofl_stringmap_order((const char *const *)strs, lens, n, order);
	free(lens);
	return rc ? OFL_NOMEM(err) : 0;
}

/* Finds a target-ID conflict among ids[0..n) the way the bundler does:
 * per kind and raw triple (docs/formats.md §1.5, §3).  Returns 1 with the pair
 * written as "<kind>-<raw triple>-<target id>" in *a and *b (caller frees),
 * 0 when there is none, or a negative error. */
int ofl_bl_find_conflict(const struct ofl_bundle_id *ids, size_t n, char **a, char **b,
                         struct ofl_error *err)
{
	const char **group = ofl_calloc(n ? n : 1, sizeof *group);
	size_t *members = ofl_calloc(n ? n : 1, sizeof *members);
	int rc = group && members ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		size_t k = 0, first, second;
		for (size_t j = 0; j < n; j++)
			if (ids[j].target_id[0] && !strcmp(ids[j].kind, ids[i].kind) &&
			    !strcmp(ids[j].raw_triple, ids[i].raw_triple)) {
				members[k] = j;
				group[k++] = ids[j].target_id;
			}
		if (k < 2 || members[0] != i)
			continue; /* each group once, from its first member */
		rc = ofl_target_id_find_conflict(group, k, &first, &second, err);
		if (rc == 1) {
			const struct ofl_bundle_id *x = &ids[members[first]],
			                           *y = &ids[members[second]];
			struct ofl_buf p = OFL_BUF_INIT, q = OFL_BUF_INIT;
			if (ofl_buf_printf(&p, "%s-%s-%s%c", x->kind, x->raw_triple, x->target_id,
			                   0) ||
			    ofl_buf_printf(&q, "%s-%s-%s%c", y->kind, y->raw_triple, y->target_id,
			                   0)) {
				ofl_buf_release(&p);
				ofl_buf_release(&q);
				rc = OFL_NOMEM(err);
			} else {
				*a = (char *)ofl_buf_detach(&p, NULL);
				*b = (char *)ofl_buf_detach(&q, NULL);
			}
		}
	}
	free(group);
	free(members);
	return rc;
}

struct ent_key {
	const char *id;
	size_t i;
};

static int by_id_then_place(const void *pa, const void *pb)
{
	const struct ent_key *a = pa, *b = pb;
	int c = strcmp(a->id, b->id);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The entries with one ID: byid[start..start+len), first = byid[start]. */
struct id_run {
	size_t first, start, len;
};

static int by_first(const void *pa, const void *pb)
{
	const struct id_run *a = pa, *b = pb;
	return (a->first > b->first) - (a->first < b->first);
}

/* Fills byid with the entries' places sorted by ID, then place, and runs
 * with one run per ID in the order of first appearance; returns the number
 * of runs.  O(n log n); k is scratch space for n keys. */
static size_t id_runs(const struct ofl_bundle *b, struct ent_key *k, size_t *byid,
                      struct id_run *runs)
{
	size_t nu = 0;
	for (size_t i = 0; i < b->n; i++)
		k[i] = (struct ent_key){b->entries[i].id, i};
	qsort(k, b->n, sizeof *k, by_id_then_place);
	for (size_t i = 0; i < b->n; i++) {
		byid[i] = k[i].i;
		if (i == 0 || strcmp(k[i].id, k[i - 1].id))
			runs[nu++] = (struct id_run){k[i].i, i, 0};
		runs[nu - 1].len++;
	}
	qsort(runs, nu, sizeof *runs, by_first);
	return nu;
}

/* Entries in the order LLVM visits them: hash order for binary bundles
 * (they go through a StringMap), file order otherwise.  An ID may repeat when
 * several bundles follow each other; its entries then stay together, in file
 * order, at the place of the ID. */
int ofl_bl_entry_order(const struct ofl_bundle *b, size_t *order, struct ofl_error *err)
{
	if (b->handler != OFL_BH_BINARY) {
		for (size_t i = 0; i < b->n; i++)
			order[i] = i;
		return 0;
	}
	/* Entries sorted by ID (then place) form one run per ID; the runs, in
	 * the order of their first entries, are the IDs LLVM inserts. */
	struct ent_key *keys = ofl_calloc(b->n, sizeof *keys);
	struct id_run *runs = ofl_calloc(b->n, sizeof *runs);
	size_t *byid = ofl_calloc(b->n, sizeof *byid);
	char **uniq = ofl_calloc(b->n, sizeof *uniq);
	size_t *uorder = ofl_calloc(b->n, sizeof *uorder);
	size_t nu = 0, k = 0;
	int rc = keys && runs && byid && uniq && uorder ? 0 : OFL_NOMEM(err);
	if (!rc)
		nu = id_runs(b, keys, byid, runs);
	for (size_t u = 0; u < nu; u++)
		uniq[u] = b->entries[runs[u].first].id;
	rc = rc ? rc : ofl_bl_hash_order(uniq, nu, uorder, err);
	for (size_t u = 0; !rc && u < nu; u++) {
		const struct id_run *r = &runs[uorder[u]];
		for (size_t i = 0; i < r->len; i++)
			order[k++] = byid[r->start + i];
	}
	free(keys);
	free(runs);
	free(byid);
	free(uniq);
	free(uorder);
	return rc;
}
