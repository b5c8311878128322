/* The driver's answer remembered (driver_memo.c): what `clang -###` says a
 * device action runs, as a memo that names the link's own files and the
 * driver's temporaries by number, so that one answer serves every link of
 * the same shape (plan/expand.c). */
#ifndef OFL_DRIVER_MEMO_H
#define OFL_DRIVER_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/argv.h"
#include "offlink/buf.h"
#include "offlink/error.h"

/* Words of a memo and of a command's shape, each NUL-terminated: a job
 * ends with OFL_MEMO_END; a file of the link's own is OFL_MEMO_OWN and
 * its index k (in a shape, "<k>:p<extension>"); a temporary the driver
 * makes is OFL_MEMO_TEMP, its number, ':' and its extension. */
enum { OFL_MEMO_END = 1, OFL_MEMO_OWN = 2, OFL_MEMO_TEMP = 3 };
#define OFL_MEMO_MAX (256u << 10)

/* The memo of the driver's jobs, from its -### output (text) for a
 * command of the given shape whose own files were placeholders
 * <probe>/p<k><extension>; temps collects the driver's temporaries
 * (words starting with probe/).  -1 when the output is not jobs of
 * absolute programs, names a temporary inside a word, or makes a memo
 * past OFL_MEMO_MAX. */
int ofl_memo_of(const char *text, const char *probe, const struct ofl_argv *shape,
                struct ofl_argv *temps, struct ofl_buf *m);
/* The jobs of memo m[0..n) into *jobs (*njobs of them, the caller's to
 * release with ofl_argv_release and free): own file k is own[k], the
 * driver's temporary t is "<output>.<t><extension>".  1 when m is no
 * memo of ours (nothing kept), OFL_ENOMEM. */
int ofl_memo_jobs(const uint8_t *m, size_t n, char *const *own, size_t nown, const char *output,
                  struct ofl_argv **jobs, size_t *njobs, struct ofl_error *err);

/* The memo's key for action a of l, whose command has the given shape
 * (the words after the launcher, own files as placeholders), run by
 * clang (an absolute path) for triple: everything the driver reads to
 * choose its jobs (driver_memo.c), what a link's actions share of it
 * looked at once per link.  items gets what was keyed, named ("dir: P",
 * "file: P", "absent: P") for --explain and the audit; *settled whether
 * none of it changed in the last 2 s (else the memo is not kept).  0; 1
 * when a response file is none clang can read; OFL_ENOMEM. */
struct ofl_link;
struct link_action;
int ofl_driver_key(struct ofl_link *l, const struct link_action *a, const struct ofl_argv *shape,
                   const char *clang, const char *triple, uint8_t key[32], struct ofl_argv *items,
                   bool *settled, struct ofl_error *err);

#endif
