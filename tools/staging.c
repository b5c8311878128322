/* All-or-nothing outputs for the native commands (staging.h). */
#include "staging.h"

#include <stdbool.h>

#include "diag.h"

static const int term_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NTERM (sizeof term_signals / sizeof term_signals[0])

static void termination_signals(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < NTERM; i++)
		sigaddset(s, term_signals[i]);
}

void signals_hold(sigset_t *old)
{
	sigset_t s;
	termination_signals(&s);
	sigprocmask(SIG_BLOCK, &s, old);
}

void signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void staging_begin(struct staging *s)
{
	s->set = (struct ofl_outset)OFL_OUTSET_INIT;
	signals_hold(&s->old);
}

int staging_end(struct staging *s, int rc)
{
	sigset_t pending;
	bool signalled = false;
	if (sigpending(&pending) == 0)
		for (size_t i = 0; i < NTERM; i++)
			signalled = signalled || sigismember(&pending, term_signals[i]) == 1;
	struct ofl_error err = OFL_ERROR_INIT;
	if (rc || signalled)
		ofl_outset_abort(&s->set);
	else if (ofl_outset_commit(&s->set, &err))
		rc = error_lib(&err);
	/* (still blocked by the caller, the signal would not end us) */
	if (signalled && !rc)
		rc = error("interrupted by a signal: no output written");
	signals_release(&s->old); /* a pending signal takes effect here */
	return rc;
}
