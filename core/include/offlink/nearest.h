/* "Did you mean ...?": the word a mistyped one most likely meant, for every
 * front end's messages (subcommands, options, plugin options, values). */
#ifndef OFFLINK_NEAREST_H
#define OFFLINK_NEAREST_H

#include <stddef.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* The choice nearest to the first len bytes of word by edit distance
 * (inserting, deleting or replacing a character, or swapping two
 * neighbours, each counts 1), when it is near enough to be a typo of it: at
 * most 2 edits, and fewer than half the choice's length, so that a short
 * word does not match everything.  The first of equally near choices;
 * NULL when none is near. */
const char *ofl_nearest(const char *word, size_t len, const char *const *choices, size_t n);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
