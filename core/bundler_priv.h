/* Private to the bundler (bundler.c, bundler_archive.c). */
#ifndef OFL_BUNDLER_PRIV_H
#define OFL_BUNDLER_PRIV_H

#ifndef OFL_BUILDING_CORE
#error "bundler_priv.h is private to libofflink"
#endif

#include "offlink/bundle.h"
#include "offlink/bundler.h"
#include "offlink/io.h"
#include "offlink/target_id.h"

/* The -targets of one run. */
struct targets {
	size_t n;
	struct ofl_bundle_id *ids;   /* as parsed from -targets */
	struct ofl_bundle_id *match; /* ids[i].str read back, as LLVM matches them */
	size_t *order;               /* StringMap order of the normalized IDs */
};

/* -type=a: one output archive per target (docs/formats.md §3), staged in set
 * when not NULL (see ofl_outset). */
int ofl_bl_unbundle_archive(const struct ofl_bundler_options *o, const struct targets *t,
                            struct ofl_outset *set, struct ofl_error *err);

#endif
