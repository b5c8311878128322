/* Bundle entry IDs and target IDs, as clang-offload-bundler writes and
 * matches them (docs/formats.md §2).
 *
 * A bundle entry ID is "<kind>-<arch>-<vendor>-<os>-<env>-<targetid>", where
 * the target ID is "<processor>(:<feature>(+|-))*" and may be empty.  How a
 * command-line string becomes the written ID differs between LLVM 19 (split
 * textually) and 22 (Triple::normalize); both dialects are offered.
 */
#ifndef OFFLINK_TARGET_ID_H
#define OFFLINK_TARGET_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_llvm_dialect {
	OFL_LLVM19 = 19,
	OFL_LLVM22 = 22, /* the default */
	/* 22's, and the amdgpu triple architecture with its sub-architectures
	 * ("amdgpu", "amdgpu9.0a-amd-amdhsa"; #206480), which 23 parses and
	 * main writes */
	OFL_LLVM23 = 23,
};

/* One parsed entry ID.  All strings are owned, NUL-terminated. */
struct ofl_bundle_id {
	char *kind;      /* "host", "openmp", "hip", "hipv4", ... */
	char *triple;    /* normalized per dialect, e.g. "x86_64-unknown-linux-gnu" */
	char *target_id; /* "" or "gfx90a:xnack+" (features verbatim) */
	char *str;       /* the written form: kind-triple-target_id */
	/* The four triple fields as given ("x86_64-linux-gnu-"): what LLVM's
	 * compatibility checks compare, and what its errors print. */
	char *raw_triple;
	enum ofl_llvm_dialect dialect; /* whose reading this is */
};

#define OFL_BUNDLE_ID_INIT                                                                         \
	{                                                                                          \
		NULL, NULL, NULL, NULL, NULL, OFL_LLVM22                                           \
	}

/* Parses a -targets string the way the bundler does when bundling or
 * unbundling: validates kind and triple arch, normalizes per dialect.
 * Errors (OFL_EINVAL) use LLVM's wording: "invalid target 'X', unknown
 * offloading kind 'k'", ", unknown target triple 't'", and 22's "Targets need
 * to follow the format ..." message. */
int ofl_bundle_id_parse(const char *s, enum ofl_llvm_dialect d, struct ofl_bundle_id *out,
                        struct ofl_error *err);

/* Splits an ID as stored in a bundle file, without validation or
 * normalization beyond what the reader does (never fails except ENOMEM).
 * str is then the normalized form LLVM's reader computes, not the stored
 * bytes.  A 22 ID with fewer than 5 fields gets empty missing fields. */
int ofl_bundle_id_split(const char *s, size_t len, enum ofl_llvm_dialect d,
                        struct ofl_bundle_id *out, struct ofl_error *err);

void ofl_bundle_id_release(struct ofl_bundle_id *id);

bool ofl_bundle_id_is_host(const struct ofl_bundle_id *id);

/* LLVM's compatibility rule (§2.4): may file entry `entry` serve request
 * `req`?  hip_openmp allows hip* kinds to match openmp.  Both must be IDs as
 * LLVM reads them: `entry` from ofl_bundle_id_split() of the stored bytes,
 * `req` from ofl_bundle_id_split() of the parsed request's str (LLVM turns
 * a request into its written form and parses that again).  Beyond §2.4, a
 * processor on an amdgcn/r600 triple must be an AMDGPU one and features
 * must be ones it supports (xnack, sramecc), and other triples allow no
 * features, unless the match is exact. */
bool ofl_bundle_id_compatible(const struct ofl_bundle_id *entry, const struct ofl_bundle_id *req,
                              bool hip_openmp);

/* Triple compatibility as llvm::Triple::isCompatibleWith observes it: each
 * field parsed in place, then arch, sub-arch, vendor, OS, environment and
 * object format compared (Apple: arch, vendor and OS only).  d matters
 * because 19 knows fewer names ("intel", "managarm", "llvm", ...). */
bool ofl_triple_compatible(const char *a, const char *b, enum ofl_llvm_dialect d);

/* A host triple's object format and environment as LLVM's clang sees
 * them: the triple normalized (Triple::normalize: "x86_64-w64-mingw32" is
 * x86_64-w64-windows-gnu, "x86_64-pc-cygwin" x86_64-pc-windows-cygnus,
 * "x86_64-pc-win32" x86_64-pc-windows-msvc), then its fields parsed.
 * COFF: a Windows or UEFI OS, or an explicit "coff".  MSVC: COFF of the
 * msvc environment, whose objects link.exe and lld-link link and whose
 * constructors lie in .CRT$XC*. */
bool ofl_triple_is_coff(const char *triple);
bool ofl_triple_is_msvc(const char *triple);
/* A Windows host of the GNU environment (MinGW, "gnullvm" too) or Cygwin
 * (llvm::Triple::isOSCygMing): COFF objects whose constructors lie in
 * .ctors.* and whose hidden definitions are named in -exclude-symbols
 * linker directives. */
bool ofl_triple_is_cygming(const char *triple);

/* A target ID split into processor and features. */
struct ofl_target_feature {
	char *name;
	char sign; /* '+' or '-' */
};

struct ofl_target_id {
	char *processor;
	size_t nfeatures, cap;
	struct ofl_target_feature *features; /* in the order written */
};

#define OFL_TARGET_ID_INIT                                                                         \
	{                                                                                          \
		NULL, 0, 0, NULL                                                                   \
	}

/* Parses "gfx90a:xnack+:sramecc-".  A feature without a sign, or a feature
 * named twice, is OFL_EINVAL (LLVM crashes on these).  Like LLVM, a trailing
 * ':' is accepted ("gfx90a:" has no features). */
int ofl_target_id_parse(const char *s, struct ofl_target_id *out, struct ofl_error *err);
void ofl_target_id_release(struct ofl_target_id *t);

/* The clang driver's canonical form: features sorted by name.  Caller frees. */
char *ofl_target_id_canonical(const struct ofl_target_id *t);

/* True when a and b conflict: same processor, one sets a feature the other
 * leaves as Any ("Cannot bundle inputs with conflicting targets"). */
bool ofl_target_id_conflict(const struct ofl_target_id *a, const struct ofl_target_id *b);

/* The bundler's own check over the target IDs of one kind-triple (docs/formats.md
 * §1.5, §3), which is narrower than the pairwise rule above: the IDs are
 * sorted bytewise and deduplicated, the first ID of each processor is kept,
 * and a later one conflicts only if it names a feature that first one lacks
 * ("gfx90a:sramecc+:xnack+" with "gfx90a:xnack+" passes).  Returns 1 and the
 * indices of the pair (in the order LLVM prints them), 0 when there is no
 * conflict, or OFL_EINVAL / OFL_ENOMEM.  Callers group IDs by kind "-"
 * raw_triple, as both versions do when bundling and for
 * -check-input-archive (hip and hipv4 apart; "amdhsa-" and "amdhsa-unknown"
 * apart), and print each as "<kind>-<raw_triple>-<target id>". */
int ofl_target_id_find_conflict(const char *const *ids, size_t n, size_t *first, size_t *second,
                                struct ofl_error *err);

/* ---- Offload targets as clang-linker-wrapper matches them -------------
 *
 * An image's target is its (triple, arch) pair.  LLVM 22 (and 23, which
 * predates llvm-project#209563) groups images by the two strings and
 * copies an image into the groups of compatible other targets; LLVM main
 * groups them by equivalence and lets archive members join the groups
 * they provide for (docs/formats.md §2.5).  For AMDGPU, main reads a
 * target ID: the processor (the arch's, or the one the triple's
 * sub-architecture names), and xnack and sramecc each Unsupported, Any,
 * Off or On. */
enum ofl_feature_state { OFL_FEAT_UNSUPPORTED, OFL_FEAT_ANY, OFL_FEAT_OFF, OFL_FEAT_ON };

struct ofl_offload_target {
	const char *triple, *arch; /* as given (borrowed) */
	bool amdgpu;               /* an amdgcn, amdgpu[<subarch>] or r600 triple */
	/* AMDGPU: the processor ("gfx90a", "gfx9-generic"; "": any one; one
	 * main does not know is matched by its name alone) */
	char processor[32];
	/* the processor of its family's major sub-architecture, which
	 * serves the whole family ("gfx9-generic" for gfx900; gfx90a for
	 * itself); "" when none or not known */
	char family[32];
	enum ofl_feature_state xnack, sramecc;
};

/* Reads (triple, arch); the strings must outlive t. */
void ofl_offload_target_parse(const char *triple, const char *arch, struct ofl_offload_target *t);

/* LLVM main's areTargetsEquivalent: one device link.  AMDGPU: the same
 * processor and feature states, compatible triples (amdgcn-amd-amdhsa and
 * gfx90a is amdgpu9.0a-amd-amdhsa with no arch); others: compatible
 * triples and the same arch. */
bool ofl_targets_equivalent(const struct ofl_offload_target *a, const struct ofl_offload_target *b);

/* LLVM main's areTargetsCompatible(provided, requested), directional: may
 * code for p serve a link for r?  AMDGPU: p's processor is r's, or any,
 * or r's family's major one (gfx9-generic serves gfx900, not gfx90a);
 * each of p's features Any, Unsupported or r's state (xnack-any serves
 * xnack+, not the reverse); compatible triples.  Others: compatible
 * triples, and the same arch or either "generic". */
bool ofl_target_provides(const struct ofl_offload_target *p, const struct ofl_offload_target *r);

/* LLVM 22's areTargetsCompatible, symmetric and false for the same pair
 * of strings: the same triple string, then either arch "generic", or for
 * AMDGPU the same processor (before the first ':') and no feature set '+'
 * on one side and '-' on the other. */
bool ofl_targets_compatible22(const struct ofl_offload_target *a,
                              const struct ofl_offload_target *b);

/* The processor an AMDGPU triple's sub-architecture names, into out:
 * gfx90a for amdgpu9.0a-amd-amdhsa, gfx9-generic for amdgpu9; false (out
 * "") when it names none (amdgcn, amdgpu, amdgpu8, an unknown one). */
bool ofl_amdgpu_subarch_processor(const char *triple, char *out, size_t size);

/* An AMDGPU triple whose sub-architecture LLVM main does not know
 * ("amdgpu9.99-amd-amdhsa"): nothing can link it. */
bool ofl_amdgpu_subarch_unknown(const char *triple);

/* Is proc a processor clang of this dialect knows (sm_*, gfx*, ...)? */
bool ofl_processor_known(const char *proc, size_t len, enum ofl_llvm_dialect d);

/* Is arch a triple architecture LLVM of this dialect knows ("x86_64",
 * "amdgcn", ...; "riscv64be" only 22)? */
bool ofl_triple_arch_known(const char *arch, size_t len, enum ofl_llvm_dialect d);

/* The order in which an llvm::StringMap built by inserting keys[0..n) in
 * that order iterates (docs/formats.md §1.6): fills order[] with key indices.
 * Used for -list output and for unbundling's match order.  A repeated key
 * keeps its first bucket but holds the index of its last insertion (as
 * map[key] = value does); order[] then has fewer than n indices and is
 * padded with SIZE_MAX.  Returns 0 or OFL_ENOMEM. */
int ofl_stringmap_order(const char *const *keys, const size_t *lens, size_t n, size_t *order);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
