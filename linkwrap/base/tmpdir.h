/* A link's temporary directory (tmpdir.c). */
#ifndef OFL_TMPDIR_H
#define OFL_TMPDIR_H

#include <stdbool.h>

#include "offlink/error.h"

/* A new <parent>/offlink-XXXXXX (owned, into *dir) with its owner file;
 * first the directories of the same user that killed links left in
 * parent are removed. */
int ofl_tmpdir_make(const char *parent, char **dir, struct ofl_error *err);
/* Removes dir (made in parent) and all in it, following no link; with
 * keep, marks it kept instead (--save-temps: no later link removes it). */
void ofl_tmpdir_remove(const char *parent, const char *dir, bool keep);

#endif
