/* A plan run (offlink/link.h, ofl_link_execute): its device actions, then
 * its wraps; and the context freed once what runs has ended. */
#include <stdlib.h>

#include "internal.h"
#include "run_priv.h"
#include "offlink/trace.h"

/* The result: the wrapper objects written, the runtime libraries and
 * their dirs the plan chose. */
static void result(struct ofl_link *l, struct ofl_link_result *res)
{
	l->res.libraries = l->runtime_libs.v;
	l->res.nlibraries = l->runtime_libs.n;
	l->res.libdirs = l->runtime_dirs.v;
	l->res.nlibdirs = l->runtime_dirs.n;
	*res = l->res;
}

int ofl_link_execute(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err)
{
	if (p->action != OFL_PLAN_ADD)
		return 0;
	if (l->executed)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the plan ran already: a context links once");
	l->executed = true;
	uint64_t begin = ofl_trace_now(l->o.trace);
	int rc = l->nactions || l->ngroups ? ofl_devlink_run(l, err) : 0;
	ofl_trace_span(l->o.trace, OFL_TRACE_MAIN, "device links", begin, NULL, 0);
	if (!rc && l->ngroups) {
		begin = ofl_trace_now(l->o.trace);
		rc = ofl_wrap_all(l, err);
		ofl_trace_span(l->o.trace, OFL_TRACE_MAIN, "wrap", begin, NULL, 0);
	}
	if (!rc)
		result(l, &p->res);
	return rc;
}

void ofl_link_free(struct ofl_link *l)
{
	if (!l)
		return;
	ofl_link_wait(l); /* before the images the stores read go */
	ofl_link_destroy(l);
}
