#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/proc.h"

/* sh -c SCRIPT, stdout captured or not. */
static int run_sh(struct ofl_proc *p, const char *script, bool capture, struct ofl_error *e)
{
	p->capture_stdout = capture;
	if (ofl_proc_push(p, "sh", e) || ofl_proc_push(p, "-c", e) || ofl_proc_push(p, script, e))
		return e->code;
	return ofl_proc_run(p, e);
}

OFL_TEST(proc_captures_both_streams)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(run_sh(&p, "echo out; echo err1 >&2; printf x >&2", true, &e), 0);
	CHECK_EQ_U(p.status, 0);
	CHECK_EQ_U(p.out.len, 4);
	CHECK_MEM(p.out.data, "out\n", 4);
	CHECK_EQ_U(p.err.len, 6);
	CHECK_MEM(p.err.data, "err1\nx", 6);
	ofl_proc_release(&p);
}

OFL_TEST(proc_discards_stdout_unless_asked)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(run_sh(&p, "echo out; echo err >&2", false, &e), 0);
	CHECK_EQ_U(p.out.len, 0);
	CHECK_EQ_U(p.err.len, 4);
	ofl_proc_release(&p);
}

/* Both pipes far beyond their buffer size: draining must interleave. */
OFL_TEST(proc_large_output_does_not_block)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(run_sh(&p, "head -c 300000 /dev/zero >&2; head -c 200000 /dev/zero", true, &e),
	           0);
	CHECK_EQ_U(p.err.len, 300000);
	CHECK_EQ_U(p.out.len, 200000);
	ofl_proc_release(&p);
}

OFL_TEST(proc_failure_names_first_stderr_line)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	int rc = run_sh(&p, "echo; echo 'bad input' >&2; echo second >&2; exit 3", false, &e);
	CHECK((rc) == OFL_ECHILD);
	CHECK_EQ_U(p.status, 3);
	CHECK_STR(e.msg, "'sh' failed (exit status 3): bad input");
	ofl_proc_release(&p);
}

OFL_TEST(proc_signal_is_a_failure)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK((run_sh(&p, "echo dying >&2; kill -9 $$", false, &e)) == OFL_ECHILD);
	CHECK((p.status) == -1);
	CHECK_STR(e.msg, "'sh' was killed by a signal: dying");
	ofl_proc_release(&p);
}

OFL_TEST(proc_cannot_start)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_proc_push(&p, "./no-such-tool", &e), 0);
	CHECK((ofl_proc_run(&p, &e)) == OFL_ECHILD);
	CHECK(strstr(e.msg, "cannot run './no-such-tool'") == e.msg);
	ofl_proc_release(&p);
	struct ofl_proc q = OFL_PROC_INIT;
	struct ofl_error e2 = OFL_ERROR_INIT;
	CHECK((ofl_proc_run(&q, &e2)) == OFL_EINVAL);
}

OFL_TEST(proc_pushf_and_no_shell)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	p.capture_stdout = true;
	CHECK_EQ_U(ofl_proc_push(&p, "printf", &e), 0);
	CHECK_EQ_U(ofl_proc_pushf(&p, &e, "%s-%d;$HOME", "a", 7), 0);
	CHECK_EQ_U(p.argc, 2);
	CHECK_STR(p.argv[1], "a-7;$HOME");
	CHECK(p.argv[2] == NULL);
	CHECK_EQ_U(ofl_proc_run(&p, &e), 0);
	CHECK_EQ_U(p.out.len, 9);
	CHECK_MEM(p.out.data, "a-7;$HOME", 9); /* passed verbatim, no shell */
	ofl_proc_release(&p);
}

OFL_TEST(proc_find_in_dirs_then_path)
{
	CHECK(mkdir("bin", 0755) == 0);
	FILE *f = fopen("bin/tool", "w");
	CHECK(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	const char *dirs[3] = {NULL, "nowhere", "bin"};
	CHECK(ofl_proc_find("tool", dirs, 3, NULL) == NULL); /* not executable yet */
	CHECK(chmod("bin/tool", 0755) == 0);
	char *p = ofl_proc_find("tool", dirs, 3, NULL);
	CHECK_STR(p, "bin/tool");
	free(p);
	CHECK(ofl_proc_find("sh", dirs, 3, NULL) == NULL); /* no search path */
	p = ofl_proc_find("sh", dirs, 3, "/nonexistent::/bin");
	CHECK(p && p[0] == '/' && strstr(p, "/sh"));
	free(p);
	CHECK(ofl_proc_find("no-such-tool-anywhere", dirs, 3, "/bin:/usr/bin") == NULL);
}

/* A child leads a process group of its own (ofl_proc_kill kills the group)
 * and starts with no signal blocked, whatever its parent blocks. */
OFL_TEST(proc_child_own_group_no_blocked_signals)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	CHECK_EQ_U(run_sh(&p,
	                  /* the mask read by the shell itself: while it waits for a
	                   * child of its own (grep) the shell may block signals */
	                  "set -- $(cut -d' ' -f5 /proc/$$/stat); [ \"$1\" = $$ ] || exit 1; "
	                  "while read k v; do [ \"$k\" = SigBlk: ] && exit $(( 0x$v != 0 )); "
	                  "done </proc/$$/status; exit 1",
	                  false, &e),
	           0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	ofl_proc_release(&p);
}
