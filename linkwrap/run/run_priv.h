/* Private to the run of a plan (run/): what its files share. */
#ifndef OFL_RUN_PRIV_H
#define OFL_RUN_PRIV_H

#include <time.h>

#include "cache_priv.h"
#include "link_priv.h"

/* action.c: one device action run: its inputs written, the cache asked,
 * the command run, its output stored. */
/* Logs action a's command and runs it through the cache, unless a dry run
 * or cancelled; keep (empty, or NULL) gets the output's bytes; *slot
 * publishes the running process for ofl_link_cancel. */
int ofl_devlink_exec(struct ofl_link *l, struct link_action *a, struct ofl_file *keep, int *slot,
                     struct ofl_error *err);
/* Seconds since t0 (CLOCK_MONOTONIC). */
double ofl_devlink_elapsed(const struct timespec *t0);

/* key.c: action a's key, of the files it declares and its words and
 * environment, and what it saw of each file (*seen, to free) for
 * ofl_action_unchanged; -1 when a file cannot be read (not cached) or no
 * memory. */
struct stat;
int ofl_action_key(struct ofl_link *l, const struct link_action *a, uint8_t key[OFL_CACHE_KEY_SIZE],
                   struct stat **seen);
/* Whether every file a's key told by identity or absence is as the key saw
 * it: else the action may have read other bytes, and its output is not
 * stored. */
bool ofl_action_unchanged(const struct ofl_link *l, const struct link_action *a,
                          const struct stat *seen);

/* report.c: what a failed command of group gi says (log: the command as
 * printed). */
void ofl_devlink_report(struct ofl_link *l, size_t gi, const char *what, const struct ofl_proc *cmd,
                        const char *log);

/* sched.c: the plan's device actions, run (a group's in order, groups in
 * parallel). */
int ofl_devlink_run(struct ofl_link *l, struct ofl_error *err);

/* wrap.c: the plan's wraps written into l->res. */
int ofl_wrap_all(struct ofl_link *l, struct ofl_error *err);

#endif
