/* Private to the bundler: what bundler.c hands to bundler_archive.c and
 * bundler_stream.c. */
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

/* One entry to write: e's bytes go to the output at path. */
struct ofl_bl_route {
	const struct ofl_bundle_entry *e;
	const char *path;
};

/* Unbundles the single compressed binary bundle in f, whose entries (read
 * by ofl_bundle_read_header_only) r[0..n) point to, by inflating it once
 * and writing each route's bytes as they pass (r is sorted by offset).  The
 * outputs are staged in set, or when set is NULL committed together once
 * the whole stream has been checked, so a damaged stream leaves none.  No
 * path may be "-".  *hash, unless hash is NULL, gets the bundle's MD5. */
int ofl_bl_unbundle_stream(const struct ofl_file *f, struct ofl_bl_route *r, size_t n,
                           struct ofl_outset *set, uint64_t *hash, struct ofl_error *err);

#endif
