/* How many device links a link runs at once, and GNU make's jobserver when
 * it runs under make (docs/integration.md, "Parallel device links and
 * make's jobserver").  The front end reads MAKEFLAGS; the library decides
 * what it means, for ld.offlink and the plugin alike. */
#ifndef OFFLINK_JOBSERVER_H
#define OFFLINK_JOBSERVER_H

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_jobserver {
	unsigned jobs; /* device links at once: ofl_link_opts.jobs */
	/* Tokens are read from rfd and written back to wfd
	 * (ofl_link_opts.jobserver_rfd/wfd); -1: no jobserver. */
	int rfd, wfd;
	int opened; /* the descriptor opened here, or -1 */
};

#define OFL_JOBSERVER_INIT                                                                         \
	{                                                                                          \
		1, -1, -1, -1                                                                      \
	}

/* makeflags: the MAKEFLAGS value the front end read, NULL when there is
 * none (not run by make); jobs: the front end's -j, 0 when not given.
 *  - not under make: jobs, else the number of CPUs;
 *  - make's jobserver usable (--jobserver-auth=R,W or the older
 *    --jobserver-fds=R,W naming the two ends of one pipe, or
 *    --jobserver-auth=fifo:PATH): every device link beyond the first holds
 *    a token, and jobs and make's own -jN bound them too (neither: the
 *    number of CPUs);
 *  - under make without a usable jobserver (make -j1, a recipe without
 *    '+'): jobs, else 1, since make runs other jobs beside the link.
 * The read end is a descriptor of our own, non-blocking and close-on-exec
 * (make's stays as it is); ofl_jobserver_close closes it. */
void ofl_jobserver_open(struct ofl_jobserver *js, const char *makeflags, unsigned jobs);
void ofl_jobserver_close(struct ofl_jobserver *js);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
