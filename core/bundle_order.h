/* Private to the bundler: entry order and target-ID conflicts
 * (bundle_order.c), used by bundler.c and bundler_archive.c. */
#ifndef OFL_BUNDLE_ORDER_H
#define OFL_BUNDLE_ORDER_H

#ifndef OFL_BUILDING_CORE
#error "bundle_order.h is private to libofflink"
#endif

#include "offlink/bundle.h"
#include "offlink/target_id.h"

/* order[0..n) gets the StringMap order of strs[0..n) (LLVM's iteration
 * order over a map keyed by them). */
int ofl_bl_hash_order(char *const *strs, size_t n, size_t *order, struct ofl_error *err);

/* Entries in the order LLVM visits them (see bundle_order.c). */
int ofl_bl_entry_order(const struct ofl_bundle *b, size_t *order, struct ofl_error *err);

/* A target-ID conflict among ids, per kind and raw triple: 1 with the pair
 * in *a and *b (caller frees), 0, or a negative error. */
int ofl_bl_find_conflict(const struct ofl_bundle_id *ids, size_t n, char **a, char **b,
                         struct ofl_error *err);

#endif
