/* The plan's device actions run (docs/design.md, "Device links"): a
 * group's in order, groups in parallel by worker threads, as many at once
 * as make's jobserver or -j allow; ofl_link_cancel stops them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "run_priv.h"
#include "offlink/archive.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

static bool cancelled(struct ofl_link *l)
{
	return __atomic_load_n(&l->cancelled, __ATOMIC_SEQ_CST);
}

/* Runs group gi's actions in order (LLVM 19's LTO step, then its device
 * link); *slot publishes the running command for ofl_link_cancel. */
static int link_group(struct ofl_link *l, size_t gi, int *slot)
{
	struct link_group *g = &l->groups[gi];
	int rc = 0;
	for (size_t i = 0; !rc && i < g->nactions; i++) {
		struct link_action *a = &l->actions[g->first_action + i];
		rc = ofl_devlink_exec(l, a, a->image ? &g->linked : NULL, slot, &g->err);
		if (rc)
			ofl_error_prefix(&g->err, "%s", a->what);
	}
	return rc;
}

/* The groups to link, claimed in order by the calling thread, which holds
 * make's implicit token, and by workers that each hold a token from make's
 * jobserver (when there is one) while they link.  A worker waits for its
 * token before it claims a group, so no claimed group waits for a token
 * that may never come (make's other jobs hold them until this link ends);
 * waiting stops once no group is left, one failed or the link was
 * cancelled (l->wake). */
struct sched {
	struct ofl_link *l;
	pthread_mutex_t lock;
	size_t *todo; /* groups with images, in order */
	size_t ntodo, next;
	bool failed;
};

struct worker {
	struct sched *s;
	size_t slot;    /* its l->running slot */
	bool token;     /* links only while holding a token */
	unsigned track; /* its waits for tokens in the time trace, or 0 */
};

/* Async-signal-safe (ofl_link_cancel). */
static void wake(struct ofl_link *l)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&l->wake, __ATOMIC_SEQ_CST);
	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

/* Async-signal-safe: flags, kill and write.  Nothing is removed here: a
 * child may still be writing; ofl_link_free removes it all once the
 * pipeline has returned. */
void ofl_link_cancel(struct ofl_link *l)
{
	__atomic_store_n(&l->cancelled, 1, __ATOMIC_SEQ_CST);
	int *running = __atomic_load_n(&l->running, __ATOMIC_SEQ_CST);
	if (running)
		ofl_proc_kill(running, l->nrunning, SIGKILL);
	wake(l);
}

static bool claim(struct sched *s, size_t *gi)
{
	pthread_mutex_lock(&s->lock);
	bool ok = s->next < s->ntodo && !s->failed && !cancelled(s->l);
	if (ok)
		*gi = s->todo[s->next++];
	bool done = !ok || s->next == s->ntodo;
	pthread_mutex_unlock(&s->lock);
	if (done)
		wake(s->l);
	return ok;
}

static void fail(struct sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->failed = true;
	pthread_mutex_unlock(&s->lock);
	wake(s->l);
}

/* One token, waiting for it (poll, no busy loop); false, holding none,
 * once the link needs no more or the jobserver fails. */
static bool take_token(struct ofl_link *l, char *token)
{
	struct pollfd p[2] = {{l->wake, POLLIN, 0}, {l->o.jobserver_rfd, POLLIN, 0}};
	for (;;) {
		int ready = poll(p, 2, -1);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0 || p[0].revents || (p[1].revents & (POLLERR | POLLNVAL)))
			return false;
		/* another client may have taken it meanwhile: EAGAIN */
		ssize_t n = read(l->o.jobserver_rfd, token, 1);
		if (n == 1)
			return true;
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
	}
}

/* take_token, the wait a span of the worker's track in the time trace. */
static bool wait_token(struct ofl_link *l, struct worker *w, char *token)
{
	uint64_t begin = ofl_trace_now(l->o.trace);
	bool got = take_token(l, token);
	if (l->o.trace && !w->track) {
		char name[64];
		snprintf(name, sizeof(name), "worker %zu: make's tokens", w->slot);
		w->track = ofl_trace_track(l->o.trace, name);
	}
	ofl_trace_span(l->o.trace, w->track, "waiting for a token", begin, NULL, 0);
	return got;
}

static void give_token(struct ofl_link *l, char token)
{
	while (write(l->o.jobserver_wfd, &token, 1) < 0 && errno == EINTR)
		;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ofl_link *l = w->s->l;
	for (;;) {
		char token = '+';
		size_t gi;
		if (w->token && !wait_token(l, w, &token))
			return NULL;
		bool got = claim(w->s, &gi);
		if (got && link_group(l, gi, &l->running[w->slot]))
			fail(w->s);
		if (w->token)
			give_token(l, token);
		if (!got)
			return NULL;
	}
}

/* Workers for n links at once (1 in a dry run: the commands are logged in
 * order); a link that cannot wait for tokens runs alone. */
static size_t start_workers(struct sched *s, size_t n, struct worker *w, pthread_t *t)
{
	struct ofl_link *l = s->l;
	bool tokens = l->o.jobserver_rfd >= 0 && n > 1;
	if (tokens) {
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		__atomic_store_n(&l->wake, fd, __ATOMIC_SEQ_CST);
		n = fd < 0 ? 1 : n;
	}
	size_t started = 1;
	for (; started < n; started++) {
		w[started] = (struct worker){s, started, tokens, 0};
		if (pthread_create(&t[started], NULL, work, &w[started]))
			break;
	}
	return started;
}

static int first_error(struct ofl_link *l, struct ofl_error *err)
{
	if (cancelled(l))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "link cancelled");
	for (size_t i = 0; i < l->ngroups; i++)
		if (l->groups[i].err.code)
			return ofl_error_set(err, l->groups[i].err.code, l->groups[i].err.path,
			                     l->groups[i].err.offset, "%s", l->groups[i].err.msg);
	return 0;
}

int ofl_devlink_run(struct ofl_link *l, struct ofl_error *err)
{
	struct sched s = {l, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, false};
	s.todo = ofl_calloc(l->ngroups + 1, sizeof(*s.todo));
	for (size_t g = 0; s.todo && g < l->ngroups; g++)
		if (l->groups[g].nimages)
			s.todo[s.ntodo++] = g;
	if (s.ntodo && l->o.opt_level_why)
		ofl_link_logf(l, OFL_LOG_DECISION, "%s", l->o.opt_level_why);
	/* each action a track of the time trace, in the plan's order */
	for (size_t i = 0; l->o.trace && !l->o.dry_run && i < l->nactions; i++)
		l->actions[i].track = ofl_trace_track(l->o.trace, l->actions[i].what);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t n = l->o.dry_run || !s.ntodo ? 1 : l->o.jobs < s.ntodo ? l->o.jobs : s.ntodo;
	struct worker *w = ofl_calloc(n, sizeof(*w));
	pthread_t *t = ofl_calloc(n, sizeof(*t));
	int *running = ofl_calloc(n, sizeof(*running));
	int rc = s.todo && w && t && running ? 0 : OFL_NOMEM(err);
	/* made (and stale ones swept) before the workers start, not by the
	 * first of them under the link's lock while the others wait */
	if (!rc && s.ntodo && !ofl_link_tmpdir(l, err))
		rc = err->code;
	if (!rc) {
		/* published for ofl_link_cancel; freed by ofl_link_free */
		l->nrunning = n;
		__atomic_store_n(&l->running, running, __ATOMIC_SEQ_CST);
		running = NULL;
		size_t started = start_workers(&s, n, w, t);
		w[0] = (struct worker){&s, 0, false, 0};
		work(&w[0]);
		for (size_t i = 1; i < started; i++)
			pthread_join(t[i], NULL);
		rc = first_error(l, err);
	}
	if (!rc && l->nlinked)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%u device link(s) in %.2f s, %u from the cache",
		              l->nlinked, ofl_devlink_elapsed(&t0), l->ncached);
	free(running);
	free(t);
	free(w);
	free(s.todo);
	return rc;
}
