/* Outputs written all or none, signals included: termination signals are
 * held while a command writes its staged outputs (ofl_outset); one that
 * arrives meanwhile makes staging_end remove them all instead of renaming
 * them, and then takes effect. */
#ifndef OFL_TOOLS_STAGING_H
#define OFL_TOOLS_STAGING_H

#include <signal.h>

#include "offlink/io.h"

struct staging {
	struct ofl_outset set;
	sigset_t old;
};

void staging_begin(struct staging *s);
/* Commits the outputs when rc is 0 and no signal came, else removes them;
 * returns rc, or 1 after reporting a failure to commit or a signal. */
int staging_end(struct staging *s, int rc);
/* Holds termination signals around work that commits by itself (core's
 * all-or-nothing unbundling): they take effect once it is over. */
void signals_hold(sigset_t *old);
void signals_release(const sigset_t *old);

#endif
