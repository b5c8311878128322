/* Offload targets as clang-linker-wrapper matches them (offlink/target_id.h,
 * docs/formats.md §2.5).
 *
 * LLVM main's AMDGPU sub-architectures (Triple.cpp, AMDGPUTargetParser.cpp,
 * llvm-project#206480) are "amdgpu" followed by a name of the table
 * below.  A minor one ("9.0a") is one ISA and names its processor: "gfx"
 * and the name without its dot (gfx90a).  A major one ("9") is a family
 * of minors and names the family's generic processor when there is one
 * (gfx9-generic); amdgpu6, 7 and 8 name none.  gfx810, gfx908 and gfx90a
 * are families of their own.  The generic processors of amdgpu11.7 and
 * amdgpu13 are taken from LLVM's processor list (gfx11-7-generic,
 * gfx13-generic); no test of LLVM's shows them. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "offlink/target_id.h"

struct subarch {
	const char *name;    /* after "amdgpu" */
	const char *major;   /* its family's major one (itself for a major) */
	const char *generic; /* a major's generic processor, or NULL */
};

static const struct subarch subarchs[] = {
    {"6", "6", NULL},
    {"6.00", "6", NULL},
    {"6.01", "6", NULL},
    {"6.02", "6", NULL},
    {"7", "7", NULL},
    {"7.00", "7", NULL},
    {"7.01", "7", NULL},
    {"7.02", "7", NULL},
    {"7.03", "7", NULL},
    {"7.04", "7", NULL},
    {"7.05", "7", NULL},
    {"8", "8", NULL},
    {"8.01", "8", NULL},
    {"8.02", "8", NULL},
    {"8.03", "8", NULL},
    {"8.05", "8", NULL},
    {"8.10", "8.10", NULL},
    {"9", "9", "gfx9-generic"},
    {"9.00", "9", NULL},
    {"9.02", "9", NULL},
    {"9.04", "9", NULL},
    {"9.06", "9", NULL},
    {"9.09", "9", NULL},
    {"9.0c", "9", NULL},
    {"9.08", "9.08", NULL},
    {"9.0a", "9.0a", NULL},
    {"9.4", "9.4", "gfx9-4-generic"},
    {"9.42", "9.4", NULL},
    {"9.50", "9.4", NULL},
    {"10.1", "10.1", "gfx10-1-generic"},
    {"10.10", "10.1", NULL},
    {"10.11", "10.1", NULL},
    {"10.12", "10.1", NULL},
    {"10.13", "10.1", NULL},
    {"10.3", "10.3", "gfx10-3-generic"},
    {"10.30", "10.3", NULL},
    {"10.31", "10.3", NULL},
    {"10.32", "10.3", NULL},
    {"10.33", "10.3", NULL},
    {"10.34", "10.3", NULL},
    {"10.35", "10.3", NULL},
    {"10.36", "10.3", NULL},
    {"11", "11", "gfx11-generic"},
    {"11.00", "11", NULL},
    {"11.01", "11", NULL},
    {"11.02", "11", NULL},
    {"11.03", "11", NULL},
    {"11.50", "11", NULL},
    {"11.51", "11", NULL},
    {"11.52", "11", NULL},
    {"11.53", "11", NULL},
    {"11.54", "11", NULL},
    {"11.7", "11.7", "gfx11-7-generic"},
    {"11.70", "11.7", NULL},
    {"11.71", "11.7", NULL},
    {"11.72", "11.7", NULL},
    {"12", "12", "gfx12-generic"},
    {"12.00", "12", NULL},
    {"12.01", "12", NULL},
    {"12.5", "12.5", "gfx12-5-generic"},
    {"12.50", "12.5", NULL},
    {"12.51", "12.5", NULL},
    {"13", "13", "gfx13-generic"},
    {"13.10", "13", NULL},
};

/* Other spellings of a major one. */
static const struct {
	const char *alias, *name;
} subarch_aliases[] = {{"9.5", "9.4"}, {"10", "10.1"}};

#define NSUB ((int)(sizeof subarchs / sizeof subarchs[0]))

static int row_of(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof subarch_aliases / sizeof subarch_aliases[0]; i++)
		if (strlen(subarch_aliases[i].alias) == len &&
		    !memcmp(subarch_aliases[i].alias, name, len)) {
			name = subarch_aliases[i].name;
			len = strlen(name);
		}
	for (int i = 0; i < NSUB; i++)
		if (strlen(subarchs[i].name) == len && !memcmp(subarchs[i].name, name, len))
			return i;
	return -1;
}

static int major_of(int row)
{
	return row_of(subarchs[row].major, strlen(subarchs[row].major));
}

/* An arch spelling's sub-architecture: its row; NONE for amdgcn and
 * amdgpu; UNKNOWN for any other "amdgpu<x>". */
enum { NONE = -1, UNKNOWN = -2 };

static int spelled_subarch(const char *a, size_t len)
{
	if (len <= 6) /* "", amdgcn, amdgpu */
		return NONE;
	int r = row_of(a + 6, len - 6);
	return r < 0 ? UNKNOWN : r;
}

/* AMDGPU::isSubArchCompatible on two known sub-architectures. */
static bool rows_compatible(int a, int b)
{
	int ma = major_of(a), mb = major_of(b);
	return a == b || (a == ma && ma == mb) || (b == mb && ma == mb);
}

bool ofl_amdgpu_sub_compatible(const char *a, size_t alen, const char *b, size_t blen)
{
	int ra = spelled_subarch(a, alen), rb = spelled_subarch(b, blen);
	/* no sub-architecture on one side: compatible unless it is an
	 * unknown one (LLVM: the arch name is six characters long) */
	if (ra < 0)
		return ra == NONE;
	if (rb < 0)
		return rb == NONE;
	return rows_compatible(ra, rb);
}

/* The arch component of a triple (up to the first '-'). */
static size_t arch_len(const char *triple)
{
	return strcspn(triple, "-");
}

/* The processor a sub-architecture row names, into out; "" when none. */
static void row_processor(int row, char *out, size_t size)
{
	const struct subarch *s = &subarchs[row];
	const char *dot = strchr(s->name, '.');
	if (s->generic)
		snprintf(out, size, "%s", s->generic);
	else if (dot && strlen(dot + 1) == 2)
		snprintf(out, size, "gfx%.*s%s", (int)(dot - s->name), s->name, dot + 1);
	else
		*out = '\0';
}

bool ofl_amdgpu_subarch_processor(const char *triple, char *out, size_t size)
{
	int r = spelled_subarch(triple, arch_len(triple));
	*out = '\0';
	if (r >= 0)
		row_processor(r, out, size);
	return *out != '\0';
}

bool ofl_amdgpu_subarch_unknown(const char *triple)
{
	return !strncmp(triple, "amdgpu", 6) &&
	       spelled_subarch(triple, arch_len(triple)) == UNKNOWN;
}

/* The sub-architecture a processor belongs to: gfx90a's is 9.0a, a
 * generic one's its family's major; -1 for a name main does not know. */
static int processor_row(const char *p)
{
	for (int i = 0; i < NSUB; i++)
		if (subarchs[i].generic && !strcmp(subarchs[i].generic, p))
			return i;
	size_t n = strlen(p);
	if (strncmp(p, "gfx", 3) || n < 6 || n > 8 || strchr(p, '-'))
		return -1;
	char name[8];
	snprintf(name, sizeof(name), "%.*s.%s", (int)(n - 5), p + 3, p + n - 2);
	int r = row_of(name, strlen(name));
	char back[32];
	if (r >= 0)
		row_processor(r, back, sizeof(back));
	return r >= 0 && !strcmp(back, p) ? r : -1;
}

static bool is_amdgpu_triple(const char *triple)
{
	size_t n = arch_len(triple);
	return (n == 6 && !strncmp(triple, "amdgcn", 6)) ||
	       (n == 4 && !strncmp(triple, "r600", 4)) || !strncmp(triple, "amdgpu", 6);
}

/* The explicit feature settings of an arch ("gfx90a:xnack+:sramecc-") over
 * the processor's defaults: a feature it lacks, an unknown or repeated one,
 * or one without a sign leaves the setting as it was (LLVM's TargetID). */
static void read_features(const char *arch, struct ofl_offload_target *t)
{
	bool seen_x = false, seen_s = false;
	for (const char *p = strchr(arch, ':'); p; p = strchr(p + 1, ':')) {
		size_t n = strcspn(p + 1, ":");
		const char *f = p + 1;
		char sign = n ? f[n - 1] : 0;
		enum ofl_feature_state v = sign == '+' ? OFL_FEAT_ON : OFL_FEAT_OFF;
		bool x = n == 6 && !strncmp(f, "xnack", 5), s = n == 8 && !strncmp(f, "sramecc", 7);
		if ((sign == '+' || sign == '-') && x && !seen_x &&
		    t->xnack != OFL_FEAT_UNSUPPORTED)
			t->xnack = v;
		if ((sign == '+' || sign == '-') && s && !seen_s &&
		    t->sramecc != OFL_FEAT_UNSUPPORTED)
			t->sramecc = v;
		seen_x = seen_x || x;
		seen_s = seen_s || s;
	}
}

void ofl_offload_target_parse(const char *triple, const char *arch, struct ofl_offload_target *t)
{
	memset(t, 0, sizeof(*t));
	t->triple = triple;
	t->arch = arch;
	if (!(t->amdgpu = is_amdgpu_triple(triple)))
		return;
	size_t plen = strcspn(arch, ":");
	if (!plen || (plen == 7 && !strncmp(arch, "generic", 7)))
		ofl_amdgpu_subarch_processor(triple, t->processor, sizeof(t->processor));
	else
		snprintf(t->processor, sizeof(t->processor), "%.*s", (int)plen, arch);
	if (!*t->processor)
		return; /* any processor: no features */
	int row = processor_row(t->processor);
	if (row >= 0)
		row_processor(major_of(row), t->family, sizeof(t->family));
	unsigned f = ofl_amdgpu_proc_features(t->processor);
	t->xnack = f & OFL_PROC_XNACK ? OFL_FEAT_ANY : OFL_FEAT_UNSUPPORTED;
	t->sramecc = f & OFL_PROC_SRAMECC ? OFL_FEAT_ANY : OFL_FEAT_UNSUPPORTED;
	read_features(arch, t);
}

static bool triples_compatible(const struct ofl_offload_target *a,
                               const struct ofl_offload_target *b)
{
	return ofl_triple_compatible(a->triple, b->triple, OFL_LLVM23);
}

bool ofl_targets_equivalent(const struct ofl_offload_target *a, const struct ofl_offload_target *b)
{
	if (!a->amdgpu)
		return triples_compatible(a, b) && !strcmp(a->arch, b->arch);
	return !strcmp(a->processor, b->processor) && a->xnack == b->xnack &&
	       a->sramecc == b->sramecc && triples_compatible(a, b);
}

static bool feature_provides(enum ofl_feature_state p, enum ofl_feature_state r)
{
	return p == OFL_FEAT_ANY || p == OFL_FEAT_UNSUPPORTED || p == r;
}

/* p's processor serves r's: the same, either any, or p the major of r's
 * family.  A processor main does not know serves its own name only. */
static bool processor_provides(const struct ofl_offload_target *p,
                               const struct ofl_offload_target *r)
{
	if (!strcmp(p->processor, r->processor) || !*p->processor || !*r->processor)
		return true;
	return *p->family && !strcmp(p->family, p->processor) && !strcmp(r->family, p->processor);
}

bool ofl_target_provides(const struct ofl_offload_target *p, const struct ofl_offload_target *r)
{
	if (!p->amdgpu)
		return triples_compatible(p, r) &&
		       (!strcmp(p->arch, "generic") || !strcmp(r->arch, "generic") ||
		        !strcmp(p->arch, r->arch));
	return processor_provides(p, r) && feature_provides(p->xnack, r->xnack) &&
	       feature_provides(p->sramecc, r->sramecc) && triples_compatible(p, r);
}

bool ofl_targets_compatible22(const struct ofl_offload_target *a,
                              const struct ofl_offload_target *b)
{
	if (strcmp(a->triple, b->triple))
		return false;
	if (!strcmp(a->arch, b->arch))
		return false; /* the same target, not another compatible one */
	if (!strcmp(a->arch, "generic") || !strcmp(b->arch, "generic"))
		return true;
	if (!a->amdgpu)
		return false;
	size_t pa = strcspn(a->arch, ":"), pb = strcspn(b->arch, ":");
	if (pa != pb || memcmp(a->arch, b->arch, pa))
		return false;
	static const char *const opposite[][2] = {{"xnack+", "xnack-"},
	                                          {"xnack-", "xnack+"},
	                                          {"sramecc+", "sramecc-"},
	                                          {"sramecc-", "sramecc+"}};
	for (size_t i = 0; i < sizeof opposite / sizeof opposite[0]; i++)
		if (strstr(a->arch, opposite[i][0]) && strstr(b->arch, opposite[i][1]))
			return false;
	return true;
}
