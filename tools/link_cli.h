/* What ld.offlink and the clang-linker-wrapper personality share: a host
 * link command line plus the pipeline's options, run by link_job_run. */
#ifndef OFL_LINK_CLI_H
#define OFL_LINK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "offlink/ldcmd.h"
#include "offlink/link_config.h"
#include "opts.h"

struct link_job {
	struct ofl_ldcmd cmd;      /* the host link's command line */
	struct ofl_rsp_memo rsp;   /* the response files read, for the link's device actions too */
	const char *linker_choice; /* --offlink-linker; NULL: OFFLINK_LINKER */
	const char *linker_named;  /* the host linker the name we run as asks for (gcc's
	                            * -fuse-ld=gold runs ld.gold: gold); NULL: ld */
	const char *linker_path;   /* the personality's --linker-path (the driver's choice) */
	char *linker;              /* the host linker, resolved once the inputs are known */
	struct strlist skip;       /* copies of ld.offlink never chosen as the host linker */
	char *chain_env;           /* OFFLINK_LINKER_CHAIN=... for the host linker */
	bool chained;              /* run as an offlink's host linker: device work done */
	char **host_env;           /* the host linker's environment */
	struct ofl_link_config c;  /* the pipeline's options */
	bool verbose;              /* print each command (stderr) */
	bool offload_relocatable;  /* -r: device link now (else a plain ld -r) */
	const char *merged;        /* relocatable mode: the host -r output (a temporary) */
	FILE *explain;             /* decisions, commands, timings; NULL: none */
	double started;            /* when the link started, for progress lines */
};

/* Runs the link: the host linker's alone where it needs no pipeline
 * (help, versions, a plain -r), else gathers, device-links and wraps (the
 * pipeline's options completed from the environment: TMPDIR, PATH,
 * CUDA_PATH, MAKEFLAGS's jobserver, OFFLINK_DEVICE_LAUNCHER, the OFFLINK_CACHE*
 * variables) and runs the host link, which gets OFFLINK_LINKER_CHAIN.
 * Returns the exit status (the host linker's when it ran); prints its
 * errors. */
int link_job_run(struct link_job *j);

/* ld.offlink's own option a (OFL_LD_OWN_*, -Wl,... on a link line) taken
 * into j; the personality takes them too, since the options in
 * $(offlink --ldflags) users' link flags reach it when the link line keeps
 * offload flags.  Prints its errors; non-zero on one. */
int link_job_own_option(struct link_job *j, const struct ofl_ldarg *a);

void link_job_release(struct link_job *j);

#endif
