/* Private to the run of a plan (run/): what its files share. */
#ifndef OFL_RUN_PRIV_H
#define OFL_RUN_PRIV_H

#include <time.h>

#include "link_priv.h"

/* action.c: one device action run: its inputs written, the cache asked,
 * the command run, its output stored. */
/* Opens the cache the options name, once device links are to run (a link
 * without device code makes no directory); one that cannot be opened is
 * a warning. */
void ofl_devlink_open_cache(struct ofl_link *l);
/* Logs a device action's command and runs it through the cache, unless a
 * dry run or cancelled; what names it in progress lines and a failure's
 * report; keep (empty, or NULL) gets the output's bytes. */
int ofl_devlink_exec(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                     const char *what, struct ofl_file *keep, struct ofl_error *err);
/* Seconds since t0 (CLOCK_MONOTONIC). */
double ofl_devlink_elapsed(const struct timespec *t0);

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
