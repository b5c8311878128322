/* A link session: what every front end (ld.offlink, the clang-linker-wrapper
 * personality, the linker plugin) does with the pipeline, decided here once
 * so that they cannot diverge (docs/design.md, "The link pipeline").
 *
 * The inputs always come from the host link's command line: ld.offlink's
 * own, or the linker's for the plugin.  The files a plugin's linker loads
 * are hints only: a member the host linker loaded is taken even when the
 * replay of its rules would not (a -T script's symbols), and a file the
 * command line does not name (a linker script's INPUT) is added as the
 * linker loaded it.  They never replace the command line: device code of
 * members the host link leaves out, which the device links need (a device
 * archive, the OpenMP device runtime), is only found there. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/trace.h"

bool ofl_link_wanted(const struct ofl_ldcmd *c, bool offload_relocatable)
{
	bool inputs = false;
	for (size_t i = 0; !inputs && i < c->nargs; i++)
		inputs = c->args[i].kind != OFL_LDARG_OPTION;
	return inputs && (!c->relocatable || offload_relocatable);
}

/* A step of the plan, a span of the time trace. */
static int step(struct ofl_link *l, const char *name,
                int (*run)(struct ofl_link *, struct ofl_error *), struct ofl_error *err)
{
	uint64_t begin = ofl_trace_now(l->o.trace);
	int rc = run(l, err);
	ofl_trace_span(l->o.trace, OFL_TRACE_MAIN, name, begin, NULL, 0);
	return rc;
}

int ofl_link_open(struct ofl_link **l, const struct ofl_link_opts *o, struct ofl_error *err)
{
	*l = NULL;
	if (!o->host_cmd)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the host link's command line is not known: its inputs "
		                     "cannot be read");
	int rc = ofl_link_new(l, o, err);
	rc = rc ? rc : step(*l, "gather", ofl_link_add_host_inputs, err);
	if (rc) {
		ofl_link_destroy(*l);
		*l = NULL;
	}
	return rc;
}

/* Device code linked before this link by LLVM: said, as a bypass of
 * offlink, unless meant or the personality's (offlink's device link). */
static void linked_before(struct ofl_link *l, struct ofl_link_plan *p)
{
	static const char *const warnings[] = {
	    [LINKED_LLVM] = "the device code was linked by LLVM's clang-linker-wrapper, not by "
	                    "offlink (the link line has offload flags): add $(offlink --ldflags) "
	                    "to the link flags; --no-bypass-warning or "
	                    "OFFLINK_NO_BYPASS_WARNING=1 silences this",
	    [LINKED_CLANG] = "the device code was linked by clang, not by offlink (HIP's old "
	                     "offload driver links it for --hip-link): link without --hip-link, "
	                     "and ld.offlink links the fat objects' device code, or use "
	                     "--offload-new-driver; --no-bypass-warning or "
	                     "OFFLINK_NO_BYPASS_WARNING=1 silences this"};
	static const char *const notes[] = {
	    [LINKED_LLVM] = "device code was linked by LLVM's clang-linker-wrapper already: "
	                    "nothing to do",
	    [LINKED_CLANG] = "device code was linked by clang's old HIP offload driver already "
	                     "(--hip-link): nothing to do"};
	p->action = OFL_PLAN_LINKED_BY_LLVM;
	p->note = notes[l->linked_by];
	ofl_link_logf(l, OFL_LOG_DECISION, "%s: registers device code linked before this link",
	              l->linked_unit);
	if (!l->o.bypass_ok && !l->o.llvm_wrapper)
		p->warning = warnings[l->linked_by];
}

/* The device work: which images each group links (the host link replayed,
 * then the device symbols), each group's actions, what the wraps register
 * with, the runtime libraries. */
static int plan_device_work(struct ofl_link *l, struct ofl_error *err)
{
	int rc = ofl_hostlink_cpu_args(l, err);
	rc = rc ? rc : step(l, "group images", ofl_group_images, err);
	/* LLVM 19's device runtime is an archive of images: an input of this
	 * link, added before the context takes no more, and grouped too */
	rc = rc ? rc : step(l, "device runtime", ofl_devrt_gather, err);
	l->ran = true;
	rc = rc ? rc : step(l, "group images", ofl_group_images, err);
	rc = rc ? rc : step(l, "select members", ofl_link_select, err);
	rc = rc ? rc : ofl_group_check_abis(l, err);
	if (rc)
		return rc;
	ofl_group_count_taken(l);
	rc = ofl_group_check_sycl(l, err);
	if (rc)
		return rc;
	rc = ofl_llvm_steps(l) ? ofl_llvm_log_extract(l, err) : 0;
	rc = rc ? rc : step(l, "device actions", ofl_devlink_plan, err);
	return rc || l->o.emit_fatbin || l->o.llvm_wrapper ? rc : ofl_group_runtime_libs(l, err);
}

static enum ofl_plan_lto lto_of(const struct ofl_link *l, size_t g)
{
	const struct link_group *gr = &l->groups[g];
	if (gr->nactions > 1 || (gr->nactions && l->actions[gr->first_action].lto))
		return OFL_LTO_STEP;
	for (size_t k = 0; k < gr->nall; k++) {
		const struct link_image *im = ofl_group_image(l, g, k);
		if (im && ofl_bitcode_is(im->b.image, im->b.image_size))
			return OFL_LTO_LINKER;
	}
	return OFL_LTO_NONE;
}

static void publish_groups(struct ofl_link *l, struct ofl_link_plan *p)
{
	for (size_t g = 0; g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		enum ofl_plan_form form = gr->legacy                       ? OFL_FORM_OLD_HIP
		                          : ofl_llvm_old_wrapper(gr->llvm) ? OFL_FORM_LLVM19
		                                                           : OFL_FORM_LLVM20;
		l->pub_groups[g] = (struct ofl_plan_group){
		    gr->kind,         gr->triple,  gr->arch,         gr->llvm,
		    gr->llvm_why,     form,        lto_of(l, g),     gr->runtime,
		    gr->runtime_path, gr->nimages, gr->first_action, gr->nactions};
	}
	p->groups = l->pub_groups;
	p->ngroups = l->ngroups;
}

static void publish_actions(struct ofl_link *l, struct ofl_link_plan *p)
{
	size_t f = 0;
	for (size_t i = 0; i < l->nactions; i++) {
		const struct link_action *a = &l->actions[i];
		for (size_t k = 0; k < a->nfiles; k++)
			l->pub_files[f + k] = (struct ofl_plan_file){
			    a->files[k].path, (enum ofl_plan_how)a->files[k].how};
		l->pub_actions[i] = (struct ofl_device_action){
		    a->group, a->lto,   a->what, a->output,        a->cmd.argv, a->cmd.argc,
		    a->jobs,  a->njobs, a->env,  l->pub_files + f, a->nfiles,   a->uncached};
		f += a->nfiles;
	}
	p->actions = l->pub_actions;
	p->nactions = l->nactions;
}

static int publish_wraps(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err)
{
	size_t *order = ofl_calloc(l->ngroups + 1, sizeof(*order));
	if (!order)
		return OFL_NOMEM(err);
	for (int k = OFL_WRAP_OPENMP; k <= OFL_WRAP_SYCL; k++)
		for (int old = 0; old <= (k == OFL_WRAP_HIP); old++) {
			size_t n = ofl_group_kind_order(l, (enum ofl_wrap_kind)k, old, order);
			if (n && p->nwraps < 5)
				p->wraps[p->nwraps++] = (struct ofl_plan_wrap){
				    k,
				    (int)ofl_group_abi(l, (enum ofl_wrap_kind)k,
				                       l->groups[order[0]].llvm),
				    old,
				    k == OFL_WRAP_SYCL &&
				        ofl_group_sycl_desc(l, &l->groups[order[0]]),
				    n};
		}
	free(order);
	return 0;
}

/* The decisions as data, for the front ends and tests (offlink/link.h). */
static int publish(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err)
{
	size_t nfiles = 0;
	for (size_t i = 0; i < l->nactions; i++)
		nfiles += l->actions[i].nfiles;
	l->pub_units = ofl_calloc(l->nunits + 1, sizeof(*l->pub_units));
	l->pub_groups = ofl_calloc(l->ngroups + 1, sizeof(*l->pub_groups));
	l->pub_actions = ofl_calloc(l->nactions + 1, sizeof(*l->pub_actions));
	l->pub_files = ofl_calloc(nfiles + 1, sizeof(*l->pub_files));
	if (!l->pub_units || !l->pub_groups || !l->pub_actions || !l->pub_files)
		return OFL_NOMEM(err);
	for (size_t u = 0; u < l->nunits; u++) {
		const struct link_unit *un = &l->units[u];
		l->pub_units[u] =
		    (struct ofl_plan_unit){un->name, un->taken, un->why, un->device, un->nimages};
	}
	p->units = l->pub_units;
	p->nunits = l->nunits;
	publish_groups(l, p);
	publish_actions(l, p);
	return publish_wraps(l, p, err);
}

int ofl_link_plan(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err)
{
	*p = (struct ofl_link_plan){.action = OFL_PLAN_UNCHANGED};
	/* its groups, images and actions are made once (a linker that loads
	 * the plugin twice would otherwise plan twice over the same state) */
	if (l->ran)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the link was planned already: a context links once");
	/* the bundle is the output: no host link to fall back on */
	bool device_code = ofl_link_has_device_code(l);
	if (l->o.emit_fatbin && !device_code)
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "Expected a single bundled image for direct fat binary output");
	/* the host linker of an offlink (ld.offlink, the personality): the
	 * device code was seen to, its wrapper objects are among the inputs;
	 * the personality's work is the device link, always */
	if (l->o.chained && !l->o.llvm_wrapper)
		return 0;
	if (!device_code) {
		if (l->linked_by != LINKED_NOT)
			linked_before(l, p);
		l->ran = true;
		return 0;
	}
	/* relocatable mode writes -o itself (ld's a.out by default), which
	 * must not be an input: checked before any work */
	const char *out = l->o.output ? l->o.output : "a.out";
	int rc = l->o.relocatable ? ofl_link_check_output(l, out, err) : 0;
	rc = rc ? rc : step(l, "plan", plan_device_work, err);
	rc = rc ? rc : publish(l, p, err);
	if (!rc)
		p->action = OFL_PLAN_ADD;
	return rc;
}
