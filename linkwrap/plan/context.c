/* The link's context (link_priv.h): made from the options, its log and
 * its temporaries; what the plan and its run share.  Freed by
 * ofl_link_free (run/execute.c), which first waits for what runs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "cache_priv.h"
#include "link_priv.h"
#include "tmpdir.h"

void ofl_link_logf(struct ofl_link *l, enum ofl_link_log what, const char *fmt, ...)
{
	if (!l->o.log)
		return;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* out of memory: the line is lost, the link goes on */
	size_t size = n >= 0 ? 4 * (size_t)n + 1 : 0;
	char *text = size ? ofl_malloc(size) : NULL;
	/* names and triples come from inputs: printable, and a tool's output
	 * keeps its lines */
	if (text) {
		ofl_printable(msg, text, size,
		              what == OFL_LOG_FAILURE || what == OFL_LOG_DETAIL ||
		                  what == OFL_LOG_MODULE || what == OFL_LOG_OUTPUT);
		l->o.log(l->o.log_ctx, what, text);
	}
	free(text);
	free(msg);
}

char *ofl_link_log_command(struct ofl_link *l, const struct ofl_proc *cmd)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (ofl_proc_format(cmd->argv, cmd->argc, l->o.llvm_wrapper, &b)) {
		ofl_buf_release(&b);
		return NULL;
	}
	ofl_link_logf(l, OFL_LOG_COMMAND, "%s", (const char *)b.data);
	return (char *)b.data;
}

/* The clang in the folder of program as invoked (found on search_path
 * when it names none), its links not resolved; owned, or NULL. */
static char *clang_beside(const char *program, const char *search_path)
{
	char *self = strchr(program, '/') ? ofl_strdup(program)
	                                  : ofl_proc_find(program, NULL, 0, search_path);
	char *slash = self ? strrchr(self, '/') : NULL, *clang = NULL;
	if (slash) {
		*(slash == self ? slash + 1 : slash) = '\0'; /* "/x": the root */
		const char *dirs[1] = {self};
		clang = ofl_proc_find("clang", dirs, 1, NULL);
	}
	free(self);
	return clang;
}

int ofl_link_new(struct ofl_link **out, const struct ofl_link_opts *o, struct ofl_error *err)
{
	struct ofl_link *l = ofl_calloc(1, sizeof(*l));
	if (!l)
		return OFL_NOMEM(err);
	l->o = *o;
	if (!l->o.host_triple)
		l->o.host_triple = "x86_64-pc-linux-gnu";
	if (!l->o.tmpdir)
		l->o.tmpdir = "/tmp";
	/* clang-linker-wrapper 23 keeps --save-temps files beside its output
	 * (#198679): the kept folder is made there */
	if (l->o.llvm_wrapper && l->o.save_temps && l->o.llvm_release >= 23 && l->o.output) {
		const char *slash = strrchr(l->o.output, '/');
		size_t n = slash ? (size_t)(slash - l->o.output) : 0;
		l->beside_output = slash ? ofl_strndup(l->o.output, n ? n : 1) : ofl_strdup(".");
		if (!l->beside_output) {
			free(l);
			return OFL_NOMEM(err);
		}
		l->o.tmpdir = l->beside_output;
	}
	if (!l->o.jobs)
		l->o.jobs = 1;
	static const char *const default_roots[] = {"/usr/lib"};
	if (!l->o.nllvm_roots) {
		l->o.llvm_roots = default_roots;
		l->o.nllvm_roots = 1;
	}
	if (l->o.no_canonical_prefixes && l->o.invoked &&
	    (l->clang_beside_self = clang_beside(l->o.invoked, l->o.search_path)))
		l->o.device_compiler = l->clang_beside_self;
	l->memo.rsp = o->rsp ? o->rsp : &l->memo.own_rsp;
	l->tools = (struct ofl_toolchain){l->o.llvm_roots, l->o.nllvm_roots, l->o.device_compiler,
	                                  l->o.search_path};
	pthread_mutex_init(&l->lock, NULL);
	l->wake = -1;
	*out = l;
	int rc = ofl_ld_default_dirs(l->o.host_triple, &l->libdirs, err);
	if (rc) {
		ofl_link_destroy(l);
		*out = NULL;
	}
	return rc;
}

/* ---- temporaries ---------------------------------------------------------- */

/* The link's directory, made on first use; under l->lock. */
static int make_tmpdir(struct ofl_link *l, struct ofl_error *err)
{
	return l->tmpdir ? 0 : ofl_tmpdir_make(l->o.tmpdir, &l->tmpdir, err);
}

char *ofl_link_temp(struct ofl_link *l, const char *name, struct ofl_error *err)
{
	char *p = NULL;
	pthread_mutex_lock(&l->lock);
	if (!make_tmpdir(l, err) &&
	    (asprintf(&p, "%s/%s", l->tmpdir, name) < 0 || ofl_ptrs_push(&l->temps, p))) {
		p = NULL; /* a failed push frees it */
		OFL_NOMEM(err);
	}
	pthread_mutex_unlock(&l->lock);
	return p;
}

bool ofl_link_owns(const struct ofl_link *l, const char *path)
{
	size_t n = l->tmpdir ? strlen(l->tmpdir) : 0;
	return n && !strncmp(path, l->tmpdir, n) && path[n] == '/';
}

const char *ofl_link_tmpdir(struct ofl_link *l, struct ofl_error *err)
{
	pthread_mutex_lock(&l->lock);
	int rc = make_tmpdir(l, err);
	pthread_mutex_unlock(&l->lock);
	return rc ? NULL : l->tmpdir;
}

void ofl_action_release(struct link_action *a)
{
	ofl_proc_release(&a->cmd);
	for (size_t j = 0; j < a->njobs; j++)
		ofl_argv_release(&a->jobs[j]);
	free(a->jobs);
	for (size_t j = 0; a->keyjobs && j < a->njobs; j++)
		ofl_argv_release(&a->keyjobs[j]);
	free(a->keyjobs);
	ofl_argv_release(&a->keyenv);
	for (size_t j = 0; j < a->nfiles; j++)
		free(a->files[j].path);
	free(a->files);
	free(a->uncached);
	free(a->deps);
	free(a->more);
	free(a->fill);
	*a = (struct link_action){0};
}

static void release_memo(struct plan_memo *m)
{
	free(m->cwd);
	ofl_symset_release(&m->modes);
	ofl_symset_release(&m->programs);
	for (size_t i = 0; i < m->nloads; i++) {
		for (size_t k = 0; k < m->loads[i].n; k++)
			free(m->loads[i].v[k].path);
		free(m->loads[i].v);
	}
	free(m->loads);
	ofl_symset_release(&m->drivers);
	for (size_t i = 0; i < m->ndriver; i++)
		ofl_argv_release(&m->driver[i].items);
	free(m->driver);
	ofl_symset_release(&m->cpu_linkers);
	ofl_symset_release(&m->clangs);
	ofl_argv_release(&m->clang_paths);
	ofl_rsp_memo_release(&m->own_rsp);
	for (char **e = m->env; e && *e; e++)
		free(*e);
	free(m->env);
}

void ofl_link_destroy(struct ofl_link *l)
{
	if (!l)
		return;
	if (l->tmpdir)
		ofl_tmpdir_remove(l->o.tmpdir, l->tmpdir, l->o.save_temps);
	if (l->wake >= 0)
		close(l->wake);
	free(l->running);
	ofl_ptrs_release(&l->temps);
	free(l->tmpdir);
	free(l->beside_output);
	free(l->clang_beside_self);
	for (size_t i = 0; i < l->nfiles; i++) {
		struct link_file *f = &l->files[i];
		ofl_archive_release(&f->ar);
		ofl_file_close(&f->f);
		free((char *)f->in.path);
	}
	for (size_t i = 0; i < l->nunits; i++) {
		free(l->units[i].name);
		if (l->units[i].thin)
			ofl_file_close(l->units[i].thin);
		free(l->units[i].thin);
		if (l->units[i].bc)
			ofl_bcglobals_release(l->units[i].bc);
		free(l->units[i].bc);
	}
	for (size_t i = 0; i < l->nimages; i++) {
		ofl_obin_release(&l->images[i].b);
		ofl_bundle_id_release(&l->images[i].id);
		free(l->images[i].owned);
	}
	for (size_t i = 0; i < l->nactions; i++)
		ofl_action_release(&l->actions[i]);
	release_memo(&l->memo);
	ofl_digests_free(l->digests);
	free(l->actions);
	free(l->pub_units);
	free(l->pub_groups);
	free(l->pub_actions);
	free(l->pub_files);
	for (size_t i = 0; i < l->ngroups; i++) {
		ofl_file_close(&l->groups[i].linked);
		for (size_t k = 0; k < l->groups[i].npending; k++)
			free(l->groups[i].pending[k].owned);
		free(l->groups[i].pending);
		free(l->groups[i].runtime_dir);
		free(l->groups[i].clang_triple);
		free(l->groups[i].runtime_path);
		ofl_argv_release(&l->groups[i].part_objs);
	}
	free(l->files);
	free(l->units);
	free(l->images);
	free(l->registered);
	free(l->groups);
	ofl_argv_release(&l->libdirs);
	ofl_argv_release(&l->script_dirs);
	ofl_argv_release(&l->script_dirs_late);
	ofl_argv_release(&l->cpu_args);
	ofl_argv_release(&l->script_externs);
	free(l->members);
	free(l->res.objects);
	ofl_argv_release(&l->runtime_libs);
	ofl_argv_release(&l->runtime_dirs);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

bool ofl_link_has_device_code(const struct ofl_link *l)
{
	return (l->nimages > 0 || l->nregistered > 0) && l->linked_by == LINKED_NOT;
}

bool ofl_link_linked_by_llvm(const struct ofl_link *l)
{
	return l->linked_by >= LINKED_CLANG;
}

const char *ofl_link_kept_temps(const struct ofl_link *l)
{
	return l->o.save_temps ? l->tmpdir : NULL;
}
