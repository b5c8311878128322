/* Child processes: started by clone and execve (see spawn), pipes for
 * stdout/stderr drained with poll so that neither can fill up and block the
 * child. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/proc.h"

extern char **environ;

int ofl_proc_push(struct ofl_proc *p, const char *arg, struct ofl_error *err)
{
	/* room for the argument and the NULL that ends argv */
	if (OFL_GROW(p->argv, p->cap, p->argc + 1))
		return OFL_NOMEM(err);
	if (!(p->argv[p->argc] = ofl_strdup(arg)))
		return OFL_NOMEM(err);
	p->argv[++p->argc] = NULL;
	return 0;
}

int ofl_proc_pushf(struct ofl_proc *p, struct ofl_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return OFL_NOMEM(err);
	int rc = ofl_proc_push(p, s, err);
	free(s);
	return rc;
}

void ofl_proc_release(struct ofl_proc *p)
{
	for (size_t i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	ofl_buf_release(&p->out);
	ofl_buf_release(&p->err);
	p->argv = NULL;
	p->argc = p->cap = 0;
}

/* Reads whatever fd has into b; returns false at end of file or error. */
static bool drain(int fd, struct ofl_buf *b, int *nomem)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (ofl_buf_append(b, chunk, (size_t)n))
		*nomem = 1;
	return true;
}

/* Collects both pipes until the child closes them. */
static int collect(struct ofl_proc *p, int outfd, int errfd, struct ofl_error *err)
{
	struct pollfd fds[2] = {{errfd, POLLIN, 0}, {outfd, POLLIN, 0}};
	struct ofl_buf *bufs[2] = {&p->err, &p->out};
	int open = outfd >= 0 ? 2 : 1, nomem = 0;
	while (open) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return ofl_error_errno(err, NULL, "poll");
		}
		for (int i = 0; i < 2; i++)
			if (fds[i].fd >= 0 && fds[i].revents &&
			    !drain(fds[i].fd, bufs[i], &nomem)) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open--;
			}
	}
	return nomem ? OFL_NOMEM(err) : 0;
}

/* The first non-empty line of the child's stderr, for messages. */
static void first_line(const struct ofl_buf *b, const char **s, int *len)
{
	const char *p = (const char *)b->data, *end = p + b->len;
	while (p < end && (*p == '\n' || *p == '\r' || *p == ' '))
		p++;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((nl ? nl : end) - p);
	*s = p;
	*len = n > 300 ? 300 : (int)n;
}

static int child_failed(const struct ofl_proc *p, struct ofl_error *err)
{
	const char *line = "";
	int len = 0;
	if (p->err.len)
		first_line(&p->err, &line, &len);
	const char *sep = len ? ": " : "";
	if (p->status < 0)
		return ofl_error_set(err, OFL_ECHILD, NULL, OFL_NO_OFFSET,
		                     "'%s' was killed by a signal%s%.*s", p->argv[0], sep, len,
		                     line);
	return ofl_error_set(err, OFL_ECHILD, NULL, OFL_NO_OFFSET,
	                     "'%s' failed (exit status %d)%s%.*s", p->argv[0], p->status, sep, len,
	                     line);
}

/* What the child needs, all made before it starts: it shares our memory
 * until execve, so it only makes system calls, and writes nothing but
 * `error`. */
struct child {
	char *const *argv, *const *envp;
	bool search;
	int in, out, err; /* its stdin, stdout and stderr */
	pid_t parent;
	int error; /* errno of the step that failed */
};

/* The kernel's struct sigaction, whose handler comes first on every Linux
 * architecture but MIPS. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

/* Our handlers must not run in the child, on memory it shares with us:
 * handled signals go back to their default, as posix_spawn does.  The
 * kernel's call, not libc's sigaction: this changes the child only, never
 * the process the library lives in. */
__attribute__((no_sanitize_address)) static void default_handlers(void)
{
	for (int s = 1; s <= 64; s++) {
		struct ksigaction old = {0}, dfl = {0};
		if (!syscall(SYS_rt_sigaction, s, NULL, &old, 8) &&
		    old.handler != (void *)SIG_IGN && old.handler != (void *)SIG_DFL)
			syscall(SYS_rt_sigaction, s, &dfl, NULL, 8);
	}
}

/* dup2, or the close-on-exec flag cleared when the descriptor is there. */
__attribute__((no_sanitize_address)) static int move_fd(int from, int to)
{
	return from == to ? fcntl(to, F_SETFD, 0) : dup2(from, to);
}

/* In a process group of its own, for ofl_proc_kill to reach whatever it
 * starts; killed when the thread that started it dies (the plugin's linker
 * killed, a crash), also if that happened before prctl.  Uninstrumented:
 * it runs on a stack ASan does not know and never returns. */
__attribute__((no_sanitize_address)) static int child_main(void *arg)
{
	struct child *c = arg;
	sigset_t none;
	sigemptyset(&none);
	default_handlers();
	if (setpgid(0, 0) || prctl(PR_SET_PDEATHSIG, SIGKILL) || move_fd(c->err, 2) < 0 ||
	    move_fd(c->out, 1) < 0 || move_fd(c->in, 0) < 0 ||
	    sigprocmask(SIG_SETMASK, &none, NULL))
		c->error = errno;
	else if (getppid() != c->parent)
		c->error = ESRCH;
	else if (c->search)
		execvpe(c->argv[0], c->argv, c->envp);
	else
		execve(c->argv[0], c->argv, c->envp);
	if (!c->error)
		c->error = errno;
	_exit(127);
}

/* clone sharing our memory, as vfork: no copy of a big linker's page
 * tables.  posix_spawn cannot set PR_SET_PDEATHSIG.  The calling thread
 * waits until the child has called execve (CLONE_VFORK), with every signal
 * blocked so that none of our handlers runs on the child's stack. */
static int spawn(struct ofl_proc *p, int out, int err, pid_t *pid, struct ofl_error *e)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return ofl_error_errno(e, "/dev/null", "cannot open");
	struct child c = {p->argv,
	                  p->envp ? p->envp : environ,
	                  p->search_path && !strchr(p->argv[0], '/'),
	                  null,
	                  out >= 0 ? out : null,
	                  err,
	                  getpid(),
	                  0};
	/* room for execvpe's search and its shell fallback's argv */
	size_t size = (64 * 1024 + p->argc * sizeof(char *) + 4095) & ~(size_t)4095;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*pid = stack == MAP_FAILED
	           ? -1
	           : clone(child_main, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	int saved = *pid < 0 ? errno : c.error;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (stack != MAP_FAILED)
		munmap(stack, size);
	close(null);
	if (*pid > 0 && c.error)
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	if (*pid < 0 || c.error)
		return ofl_error_set(e, OFL_ECHILD, NULL, OFL_NO_OFFSET, "cannot run '%s': %s",
		                     p->argv[0], strerror(saved));
	return 0;
}

/* Published for ofl_proc_kill; a child that started after the stop came
 * is killed here (the signal handler may have looked before it was
 * published). */
static void watch(const struct ofl_proc *p, pid_t pid)
{
	if (!p->running)
		return;
	__atomic_store_n(p->running, pid, __ATOMIC_SEQ_CST);
	if (p->stop && __atomic_load_n(p->stop, __ATOMIC_SEQ_CST))
		kill(-pid, SIGKILL);
}

int ofl_proc_wait(int pid, int *published, int *status, struct ofl_error *err)
{
	siginfo_t si;
	int rc = 0;
	while (!rc && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			rc = ofl_error_errno(err, NULL, "waitid");
	if (published)
		__atomic_store_n(published, 0, __ATOMIC_SEQ_CST);
	while (!rc && waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			rc = ofl_error_errno(err, NULL, "waitpid");
	return rc;
}

void ofl_proc_kill(int *running, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++) {
		int pid = __atomic_load_n(&running[i], __ATOMIC_SEQ_CST);
		if (pid > 0)
			kill(-pid, sig);
	}
}

int ofl_proc_run(struct ofl_proc *p, struct ofl_error *err)
{
	if (!p->argc)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "no command to run");
	/* [0] stdout, [1] stderr; close-on-exec keeps the read ends out of the
	 * child (dup2 onto 1 and 2 clears the flag there) */
	int pipes[2][2] = {{-1, -1}, {-1, -1}};
	if ((p->capture_stdout && pipe2(pipes[0], O_CLOEXEC)) || pipe2(pipes[1], O_CLOEXEC)) {
		int rc = ofl_error_errno(err, NULL, "pipe");
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 2; k++)
				if (pipes[i][k] >= 0)
					close(pipes[i][k]);
		return rc;
	}
	pid_t pid;
	int rc = spawn(p, pipes[0][1], pipes[1][1], &pid, err);
	if (pipes[0][1] >= 0)
		close(pipes[0][1]);
	close(pipes[1][1]);
	if (rc) {
		if (pipes[0][0] >= 0)
			close(pipes[0][0]);
		close(pipes[1][0]);
		return rc;
	}
	watch(p, pid);
	rc = collect(p, pipes[0][0], pipes[1][0], err);
	int status;
	int wrc = ofl_proc_wait(pid, p->running, &status, err);
	if (wrc)
		return rc ? rc : wrc;
	p->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (!rc && p->status)
		rc = child_failed(p, err);
	return rc;
}

static char *executable_in(const char *dir, size_t dlen, const char *name)
{
	char *path = ofl_malloc(dlen + strlen(name) + 2);
	if (!path)
		return NULL;
	sprintf(path, "%.*s/%s", (int)dlen, dir, name);
	struct stat st;
	if (!stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK))
		return path;
	free(path);
	return NULL;
}

char *ofl_proc_find(const char *name, const char *const *dirs, size_t n, const char *search_path)
{
	char *path = NULL;
	for (size_t i = 0; i < n && !path; i++)
		if (dirs[i] && dirs[i][0])
			path = executable_in(dirs[i], strlen(dirs[i]), name);
	for (const char *d = search_path; d && !path;
	     d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
		size_t len = strcspn(d, ":");
		path = executable_in(len ? d : ".", len ? len : 1, name);
	}
	return path;
}

char **ofl_proc_env_without_driver(char *const *env)
{
	static const char *const drop[] = {"LIBRARY_PATH=", "COMPILER_PATH=", "COLLECT_",
	                                   "GCC_EXEC_PREFIX="};
	size_t n = 0, k = 0;
	bool under_gcc = false;
	for (; env[n]; n++)
		under_gcc = under_gcc || !strncmp(env[n], "COLLECT_GCC=", 12);
	char **out = under_gcc ? ofl_calloc(n + 1, sizeof(*out)) : NULL;
	for (size_t i = 0; out && i < n; i++) {
		bool keep = true;
		for (size_t d = 0; d < sizeof(drop) / sizeof(*drop); d++)
			keep = keep && strncmp(env[i], drop[d], strlen(drop[d]));
		if (keep)
			out[k++] = env[i];
	}
	return out;
}

const char *ofl_proc_env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* LLVM's sys::printArg: quoted only when it must be. */
static bool plain_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=+,:@%-",
		        *s))
			return false;
	return true;
}

static int quote(struct ofl_buf *b, const char *s)
{
	int rc = ofl_buf_append(b, "\"", 1);
	for (; !rc && *s; s++)
		rc =
		    (strchr("\"\\$`", *s) && ofl_buf_append(b, "\\", 1)) || ofl_buf_append(b, s, 1);
	return rc || ofl_buf_append(b, "\"", 1);
}

int ofl_proc_format(char *const *argv, size_t argc, bool llvm_form, struct ofl_buf *out)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < argc; i++) {
		rc = ofl_buf_append(out, " ", i || llvm_form ? 1 : 0);
		if (!rc)
			rc = llvm_form && i && plain_word(argv[i])
			         ? ofl_buf_append_str(out, argv[i])
			         : quote(out, argv[i]);
	}
	return rc || ofl_buf_append(out, "", 1) ? OFL_ENOMEM : 0;
}
