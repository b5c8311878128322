/* The plan's device actions run (docs/design.md, "Device links"): each as
 * soon as the actions whose outputs it reads have run (a group's LTO step,
 * then its partitions side by side, then its link; groups in parallel), by
 * worker threads, as many at once as make's jobserver or -j allow, fewer
 * when their estimated memory would pass what the machine has;
 * ofl_link_cancel stops them.  The schedule never changes what an action
 * writes. */
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

#include "internal.h"
#include "run_priv.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

static bool cancelled(struct ofl_link *l)
{
	return __atomic_load_n(&l->cancelled, __ATOMIC_SEQ_CST);
}

/* The actions, started in plan order as they become ready (a group's
 * partitions the largest first: ranked()): by the calling
 * thread, which holds make's implicit token, and by workers that each
 * hold a token from make's jobserver (when there is one) while they run
 * one.  A worker waits for ready work before it waits for a token, and
 * holds no action while it waits for one, so no action waits for a token
 * that may never come (make's other jobs hold them until this link ends);
 * waiting stops once no action is left to start, one failed or the link
 * was cancelled (l->wake). */
enum state { WAITING, RUNNING, DONE };

struct sched {
	struct ofl_link *l;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* an action ended */
	enum state *state;
	struct ofl_error *errs; /* each action's */
	size_t first;           /* actions before it have all started */
	bool failed;
	/* memory: what the machine has (UINT64_MAX: not known), what the
	 * running actions are estimated to take, each one's estimate */
	uint64_t mem_limit, mem_running, *mem;
	bool mem_said;
	uint64_t *rank; /* each action's (rank()); UINT64_MAX: not yet looked at */
};

struct worker {
	struct sched *s;
	size_t slot;    /* its l->running slot */
	bool token;     /* runs only while holding a token */
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

/* The machine's available memory (MemAvailable), or UINT64_MAX. */
static uint64_t available_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kib = 0;
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib ? (uint64_t)kib << 10 : UINT64_MAX;
}

/* Action a's estimated peak memory, from the size its input has now. */
static uint64_t estimate(const struct link_action *a)
{
	struct stat st;
	if (!a->mem_input || stat(a->mem_input, &st))
		return 0;
	return a->mem_base + (uint64_t)a->mem_factor * (uint64_t)st.st_size;
}

static bool ready(const struct sched *s, size_t i)
{
	const struct link_action *a = &s->l->actions[i];
	if (s->state[i] != WAITING)
		return false;
	for (size_t d = 0; d < a->ndeps; d++)
		if (s->state[a->deps[d]] != DONE)
			return false;
	return true;
}

/* Whether action i fits beside those running, its estimate into mem[i]
 * (silent: ranked() asks of actions it may pass over). */
static bool fit_now(struct sched *s, size_t i)
{
	uint64_t m = estimate(&s->l->actions[i]);
	s->mem[i] = m;
	return !m || !s->mem_running ||
	       (s->mem_running <= s->mem_limit && m <= s->mem_limit - s->mem_running);
}

/* The same, said once when it does not (the link then runs fewer at
 * once). */
static bool fits(struct sched *s, size_t i)
{
	if (fit_now(s, i))
		return true;
	uint64_t m = s->mem[i];
	if (!s->mem_said)
		ofl_link_logf(s->l, OFL_LOG_DECISION,
		              "memory: %s would take about %llu MiB beside the %llu MiB estimated "
		              "for the actions running, more than the %llu MiB available "
		              "(OFFLINK_DEVICE_MEMORY, else the machine's): fewer run at once",
		              s->l->actions[i].what, (unsigned long long)(m >> 20),
		              (unsigned long long)(s->mem_running >> 20),
		              (unsigned long long)(s->mem_limit >> 20));
	s->mem_said = true;
	return false;
}

/* Action i's rank (the size of its partition's module), looked at once
 * it is ready (the module is written then); 0 when it has none. */
static uint64_t rank(struct sched *s, size_t i)
{
	const struct link_action *a = &s->l->actions[i];
	struct stat st;
	if (s->rank[i] == UINT64_MAX)
		s->rank[i] = a->rank_input && !stat(a->rank_input, &st) ? (uint64_t)st.st_size : 0;
	return s->rank[i];
}

/* Of the ready actions of k's group from k on, the one of the largest
 * rank when it fits, else k (which fits): a group's partitions by their
 * size, the largest first (the schedule only, never the bytes). */
static size_t ranked(struct sched *s, size_t k)
{
	const struct link_action *v = s->l->actions;
	size_t best = k;
	if (!v[k].rank_input)
		return k;
	for (size_t j = k + 1; j < s->l->nactions && v[j].group == v[k].group; j++)
		if (v[j].rank_input && ready(s, j) && rank(s, j) > rank(s, best))
			best = j;
	return best == k || fit_now(s, best) ? best : k;
}

/* Under the lock: 1 and the action to start now in *i (the first in plan
 * order that can, or its group's largest partition's); 0 when none can
 * yet (some run); -1 when none will (all started, one failed, or
 * cancelled).  claim: mark it running. */
static int pick(struct sched *s, size_t *i, bool claim)
{
	struct ofl_link *l = s->l;
	while (s->first < l->nactions && s->state[s->first] != WAITING)
		s->first++;
	if (s->failed || cancelled(l) || s->first == l->nactions)
		return -1;
	for (size_t k = s->first; k < l->nactions; k++)
		if (ready(s, k) && fits(s, k)) {
			*i = claim ? ranked(s, k) : k; /* asked only whether one can start */
			if (claim) {
				s->state[*i] = RUNNING;
				s->mem_running += s->mem[*i];
			}
			return 1;
		}
	return 0;
}

/* Under the lock: action i ended (rc). */
static void finish(struct sched *s, size_t i, int rc)
{
	s->state[i] = DONE;
	s->mem_running -= s->mem[i];
	s->failed = s->failed || rc;
	pthread_cond_broadcast(&s->changed);
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

/* Action i run; *slot publishes its command for ofl_link_cancel. */
static int run_action(struct sched *s, size_t i, int *slot)
{
	struct ofl_link *l = s->l;
	struct link_action *a = &l->actions[i];
	struct link_group *g = &l->groups[a->group];
	int rc = ofl_devlink_exec(l, a, a->image ? &g->linked : NULL, slot, &s->errs[i]);
	if (rc)
		ofl_error_prefix(&s->errs[i], "%s", a->what);
	return rc;
}

/* Under the lock, waiting as long as work may come (the calling thread):
 * what pick says, the action claimed. */
static int next(struct sched *s, size_t *i, bool wait)
{
	int r;
	while ((r = pick(s, i, true)) == 0 && wait)
		pthread_cond_wait(&s->changed, &s->lock);
	return r;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct sched *s = w->s;
	struct ofl_link *l = s->l;
	for (;;) {
		char token = '+';
		size_t i;
		int r = 1;
		pthread_mutex_lock(&s->lock);
		/* a worker with tokens waits for ready work first */
		while (w->token && (r = pick(s, &i, false)) == 0)
			pthread_cond_wait(&s->changed, &s->lock);
		pthread_mutex_unlock(&s->lock);
		if (r < 0 || (w->token && !wait_token(l, w, &token)))
			break;
		pthread_mutex_lock(&s->lock);
		r = next(s, &i, !w->token);
		pthread_mutex_unlock(&s->lock);
		int rc = r == 1 ? run_action(s, i, &l->running[w->slot]) : 0;
		if (w->token)
			give_token(l, token);
		if (r == 1) {
			pthread_mutex_lock(&s->lock);
			finish(s, i, rc);
			pthread_mutex_unlock(&s->lock);
		}
		if (r < 0)
			break;
	}
	/* no more to start: the workers waiting for tokens stop */
	wake(l);
	return NULL;
}

/* Workers for n actions at once (1 in a dry run: the commands are logged
 * in order); a link that cannot wait for tokens runs alone. */
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

/* The first failure in plan order, so that the message does not depend
 * on the schedule. */
static int first_error(struct ofl_link *l, const struct sched *s, struct ofl_error *err)
{
	if (cancelled(l))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "link cancelled");
	for (size_t i = 0; i < l->nactions; i++)
		if (s->errs[i].code)
			return ofl_error_set(err, s->errs[i].code, s->errs[i].path,
			                     s->errs[i].offset, "%s", s->errs[i].msg);
	return 0;
}

/* The most actions that can run at once (no more workers are of use). */
static size_t width(const struct ofl_link *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->nactions; i++)
		n += !l->actions[i].ndeps;
	for (size_t g = 0; g < l->ngroups; g++)
		n += l->groups[g].part_objs.n;
	return n ? n : 1;
}

int ofl_devlink_run(struct ofl_link *l, struct ofl_error *err)
{
	struct sched s = {
	    .l = l, .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
	if (l->nactions && l->o.opt_level_why)
		ofl_link_logf(l, OFL_LOG_DECISION, "%s", l->o.opt_level_why);
	/* each action a track of the time trace, in the plan's order */
	for (size_t i = 0; l->o.trace && !l->o.dry_run && i < l->nactions; i++)
		l->actions[i].track = ofl_trace_track(l->o.trace, l->actions[i].what);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t n = l->o.dry_run || !l->nactions ? 1 : l->o.jobs < width(l) ? l->o.jobs : width(l);
	n = n ? n : 1;
	struct worker *w = ofl_calloc(n, sizeof(*w));
	pthread_t *t = ofl_calloc(n, sizeof(*t));
	int *running = ofl_calloc(n, sizeof(*running));
	s.state = ofl_calloc(l->nactions + 1, sizeof(*s.state));
	s.errs = ofl_calloc(l->nactions + 1, sizeof(*s.errs));
	s.mem = ofl_calloc(l->nactions + 1, sizeof(*s.mem));
	s.rank = ofl_calloc(l->nactions + 1, sizeof(*s.rank));
	int rc = w && t && running && s.state && s.errs && s.mem && s.rank ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->nactions; i++) {
		s.errs[i] = (struct ofl_error)OFL_ERROR_INIT;
		s.rank[i] = UINT64_MAX;
	}
	s.mem_limit = l->o.dry_run         ? UINT64_MAX
	              : l->o.device_memory ? l->o.device_memory
	                                   : available_memory();
	/* made (and stale ones swept) before the workers start, not by the
	 * first of them under the link's lock while the others wait */
	if (!rc && l->nactions && !ofl_link_tmpdir(l, err))
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
		rc = first_error(l, &s, err);
	}
	if (!rc && l->nlinked)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%u device link(s) in %.2f s, %u from the cache",
		              l->nlinked, ofl_devlink_elapsed(&t0), l->ncached);
	pthread_cond_destroy(&s.changed);
	pthread_mutex_destroy(&s.lock);
	free(s.rank);
	free(s.mem);
	free(s.errs);
	free(s.state);
	free(running);
	free(t);
	free(w);
	return rc;
}
