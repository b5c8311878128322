/* GNU make's jobserver (offlink/jobserver.h): make 4.3 passes the two ends of
 * a pipe (--jobserver-auth=R,W; before 4.2 --jobserver-fds=R,W), make 4.4
 * may pass a fifo (--jobserver-auth=fifo:PATH). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "offlink/jobserver.h"

/* What MAKEFLAGS says: make's -jN (0: none) and the value of its last
 * jobserver option (NULL: none), a view up to the next blank. */
struct makeflags {
	unsigned jobs;
	const char *auth;
	size_t authlen;
};

static void parse(const char *s, struct makeflags *m)
{
	static const char *const auth[] = {"--jobserver-auth=", "--jobserver-fds="};
	*m = (struct makeflags){0, NULL, 0};
	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		size_t n = strcspn(s, " ");
		if (n == 2 && !strncmp(s, "--", 2))
			break; /* variable assignments follow */
		if (n > 2 && !strncmp(s, "-j", 2) && s[2] >= '0' && s[2] <= '9')
			m->jobs = (unsigned)strtoul(s + 2, NULL, 10);
		for (size_t i = 0; i < 2; i++)
			if (n > strlen(auth[i]) && !strncmp(s, auth[i], strlen(auth[i]))) {
				m->auth = s + strlen(auth[i]);
				m->authlen = n - strlen(auth[i]);
			}
		s += n;
	}
}

static bool same_pipe(int r, int w)
{
	struct stat a, b;
	return !fstat(r, &a) && !fstat(w, &b) && S_ISFIFO(a.st_mode) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* R,W: both ends of one pipe (a recipe without '+' has them closed, and
 * the numbers may be files of ours by now).  The read end is opened anew
 * through /proc, so it can be non-blocking without changing make's. */
static void open_pipe(struct ofl_jobserver *js, const char *auth, size_t n)
{
	char s[64], path[64];
	int r, w;
	char extra;
	snprintf(s, sizeof(s), "%.*s", (int)n, auth);
	if (n >= sizeof(s) || sscanf(s, "%d,%d%c", &r, &w, &extra) != 2 || r < 0 || w < 0 ||
	    !same_pipe(r, w))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	js->rfd = js->opened = fd;
	js->wfd = w;
}

static void open_fifo(struct ofl_jobserver *js, const char *path, size_t n)
{
	char p[4096];
	snprintf(p, sizeof(p), "%.*s", (int)n, path);
	int fd = n < sizeof(p) ? open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1;
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISFIFO(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	js->rfd = js->wfd = js->opened = fd;
}

static unsigned cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void ofl_jobserver_open(struct ofl_jobserver *js, const char *makeflags, unsigned jobs)
{
	struct makeflags m;
	*js = (struct ofl_jobserver)OFL_JOBSERVER_INIT;
	parse(makeflags ? makeflags : "", &m);
	if (m.auth && m.authlen > 5 && !strncmp(m.auth, "fifo:", 5))
		open_fifo(js, m.auth + 5, m.authlen - 5);
	else if (m.auth)
		open_pipe(js, m.auth, m.authlen);
	unsigned bound = jobs && m.jobs ? (jobs < m.jobs ? jobs : m.jobs) : jobs ? jobs : m.jobs;
	if (!makeflags || js->rfd >= 0)
		js->jobs = bound ? bound : cpus();
	else
		js->jobs = jobs ? jobs : 1;
}

void ofl_jobserver_close(struct ofl_jobserver *js)
{
	if (js->opened >= 0)
		close(js->opened);
	*js = (struct ofl_jobserver)OFL_JOBSERVER_INIT;
}
