/* Fuzzes entry-ID parsing in every dialect, compatibility, target-ID
 * parsing, canonical form, conflict checks, the StringMap order, the
 * offload-target rules of clang-linker-wrapper and how a host triple's
 * object format and environment are read.  The input is split at '\n'
 * into two strings (entry, request); ',' in the first splits it into
 * keys for the set-level checks, and the first '/' of each a triple from
 * an arch for the offload-target rules. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/target_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_part(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	for (size_t i = 0; i < n; i++)
		s[i] = p[i] ? (char)p[i] : '?';
	s[n] = '\0';
	return s;
}

static void check_target_id(const char *s)
{
	struct ofl_target_id t = OFL_TARGET_ID_INIT, u = OFL_TARGET_ID_INIT;
	if (ofl_target_id_parse(s, &t, NULL) != 0)
		return;
	char *c = ofl_target_id_canonical(&t);
	if (!c || ofl_target_id_parse(c, &u, NULL) != 0 || u.nfeatures != t.nfeatures ||
	    strcmp(u.processor, t.processor) != 0)
		abort();
	if (ofl_target_id_conflict(&t, &u))
		abort(); /* same features, different order: never a conflict */
	free(c);
	ofl_target_id_release(&t);
	ofl_target_id_release(&u);
}

static void check_sets(char *s)
{
	const char *keys[32];
	size_t lens[32], n = 0, order[32], a, b;
	for (char *k = strtok(s, ","); k && n < 32; k = strtok(NULL, ","))
		keys[n++] = k;
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(keys[i]);
	if (ofl_stringmap_order(keys, lens, n, order) != 0)
		abort();
	uint32_t seen = 0;
	for (size_t i = 0; i < n && order[i] != SIZE_MAX; i++) {
		if (order[i] >= n || (seen & (1u << order[i])))
			abort();
		seen |= 1u << order[i];
	}
	int rc = ofl_target_id_find_conflict(keys, n, &a, &b, NULL);
	if (rc == 1 && (a >= n || b >= n || a == b))
		abort();
}

static void check_ids(const char *e, const char *r, enum ofl_llvm_dialect d)
{
	struct ofl_bundle_id x = OFL_BUNDLE_ID_INIT, y = OFL_BUNDLE_ID_INIT;
	struct ofl_bundle_id z = OFL_BUNDLE_ID_INIT;
	char *exact = dup_part((const uint8_t *)e, strlen(e));
	if (ofl_bundle_id_split(exact, strlen(exact), d, &x, NULL) != 0)
		abort();
	if (ofl_bundle_id_parse(r, d, &y, NULL) == 0) {
		if (ofl_bundle_id_split(y.str, strlen(y.str), d, &z, NULL) != 0)
			abort();
		(void)ofl_bundle_id_compatible(&x, &z, true);
		(void)ofl_bundle_id_compatible(&z, &x, false);
		/* An entry always serves a request of its own written form. */
		if (!ofl_bundle_id_compatible(&z, &z, false))
			abort();
	}
	(void)ofl_triple_compatible(x.raw_triple, x.triple, d);
	ofl_bundle_id_release(&x);
	ofl_bundle_id_release(&y);
	ofl_bundle_id_release(&z);
	free(exact);
}

/* "triple/arch" (no '/': the whole string is the triple). */
static void split_target(char *s, struct ofl_offload_target *t)
{
	char *slash = strchr(s, '/');
	if (slash)
		*slash = '\0';
	ofl_offload_target_parse(s, slash ? slash + 1 : "", t);
}

static void check_targets(const char *e, const char *r)
{
	char *a = dup_part((const uint8_t *)e, strlen(e)),
	     *b = dup_part((const uint8_t *)r, strlen(r));
	struct ofl_offload_target x, y;
	split_target(a, &x);
	split_target(b, &y);
	/* equivalence and 22's rule are symmetric; an equivalent target is
	 * provided for */
	if (ofl_targets_equivalent(&x, &y) && x.amdgpu == y.amdgpu &&
	    (!ofl_target_provides(&x, &y) || !ofl_targets_equivalent(&y, &x)))
		abort();
	if (ofl_targets_compatible22(&x, &y) != ofl_targets_compatible22(&y, &x))
		abort();
	char p[32];
	(void)ofl_amdgpu_subarch_processor(x.triple, p, sizeof p);
	(void)ofl_amdgpu_subarch_unknown(y.triple);
	free(a);
	free(b);
}

/* A host triple read as clang reads it: MSVC and MinGW/Cygwin are both
 * COFF and never both. */
static void check_host(const char *t)
{
	bool coff = ofl_triple_is_coff(t), msvc = ofl_triple_is_msvc(t);
	bool cygming = ofl_triple_is_cygming(t);
	if ((msvc || cygming) && !coff)
		abort();
	if (msvc && cygming)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n1 = nl ? (size_t)(nl - data) : size;
	char *a = dup_part(data, n1);
	char *b = nl ? dup_part(nl + 1, size - n1 - 1) : dup_part(data, n1);
	check_ids(a, b, OFL_LLVM19);
	check_ids(a, b, OFL_LLVM22);
	check_ids(a, b, OFL_LLVM23);
	check_targets(a, b);
	check_target_id(a);
	check_target_id(b);
	check_sets(a);
	check_host(b);
	free(a);
	free(b);
	return 0;
}
