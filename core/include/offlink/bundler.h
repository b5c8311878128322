/* The bundler's operations (bundle, unbundle, list), shared by `offlink
 * bundle/unbundle/list` and the clang-offload-bundler personality: front ends
 * only parse their command line into struct ofl_bundler_options. */
#ifndef OFFLINK_BUNDLER_H
#define OFFLINK_BUNDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/ccob.h"
#include "offlink/error.h"
#include "offlink/target_id.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_bundler_options {
	const char *type; /* -type: i ii cui hipi d ll s bc gch ast o a */
	const char *const *targets;
	size_t ntargets;
	const char *const *inputs;
	size_t ninputs;
	const char *const *outputs;
	size_t noutputs;
	uint64_t align; /* -bundle-align, >= 1 */
	bool allow_missing;
	bool hip_openmp_compatible;
	bool check_input_archive;
	enum ofl_llvm_dialect dialect;
	bool compress;
	struct ofl_ccob_options ccob;
	/* Unbundling: write every output or none (LLVM keeps those written
	 * before an error). */
	bool all_or_nothing;
};

#define OFL_BUNDLER_OPTIONS_INIT                                                                   \
	{                                                                                          \
		NULL, NULL, 0, NULL, 0, NULL, 0, 1, false, false, false, OFL_LLVM22, false,        \
		    OFL_CCOB_OPTIONS_INIT, false                                                   \
	}

/* What happened, for verbose reports. */
struct ofl_bundler_report {
	bool want_hash;              /* in: recompute the hash of decompressed input */
	bool compressed;             /* output written or input read compressed */
	struct ofl_ccob_header ccob; /* header of the (first) CCOB */
	uint64_t raw_size;           /* uncompressed bundle bytes */
	bool hash_ok;                /* decompression: stored hash matched */
	uint64_t hash;               /* recalculated truncated MD5 (want_hash) */
	double seconds;              /* time spent (de)compressing */
};

int ofl_bundler_bundle(const struct ofl_bundler_options *o, struct ofl_bundler_report *rep,
                       struct ofl_error *err);

int ofl_bundler_unbundle(const struct ofl_bundler_options *o, struct ofl_bundler_report *rep,
                         struct ofl_error *err);

/* Lists the entry IDs of inputs[0] in LLVM's order (hash order for binary
 * bundles, file order otherwise).  *ids is an owned array of owned strings,
 * freed with ofl_bundler_list_free.  *found is false (and the list empty)
 * when the input holds no bundle of this type. */
int ofl_bundler_list(const struct ofl_bundler_options *o, char ***ids, size_t *n, bool *found,
                     struct ofl_bundler_report *rep, struct ofl_error *err);
void ofl_bundler_list_free(char **ids, size_t n);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
