#!/usr/bin/env bash
# scripts/cache-audit on a command of its own: a static program (it opens
# nothing but what it is told to) reading two files, one in a child
# process, and writing its output in its own folder.  The trace step
# records what it opened and exits with its status; the check passes when
# the explain's block keys every file read, names each one it does not
# (one line, the action and the file), and fails on an action without a
# block, a side output, and with --cached on `not cached:`.  A #! script
# run by the command: its interpreter and the loader count as executed.
source "$OFL_SRC/tests/lib.sh"
need cc strace python3
AUDIT=$OFL_SRC/scripts/cache-audit
cat >fake.c <<'EOF'
/* fake -o OUT [-x STATUS] [-s SIDE] [-r SCRIPT] IN1 IN2: IN1 read here,
 * IN2 by a child, both copied to OUT; SIDE written too; SCRIPT run */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static void copy(const char *in, int out)
{
	char b[256];
	int fd = open(in, O_RDONLY);
	ssize_t n;
	if (fd < 0)
		exit(9);
	while ((n = read(fd, b, sizeof(b))) > 0)
		if (write(out, b, (size_t)n) != n)
			exit(9);
	close(fd);
}
int main(int argc, char **argv)
{
	const char *out = NULL, *side = NULL, *script = NULL;
	int status = 0, c;
	while ((c = getopt(argc, argv, "o:x:s:r:")) != -1)
		if (c == 'o')
			out = optarg;
		else if (c == 'x')
			status = atoi(optarg);
		else if (c == 's')
			side = optarg;
		else
			script = optarg;
	if (!out || argc - optind != 2)
		return 2;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || open("/dev/null", O_RDONLY) < 0)
		return 9;
	copy(argv[optind], fd);
	pid_t pid = fork();
	if (pid == 0) {
		copy(argv[optind + 1], fd);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	if (side)
		close(open(side, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (script) {
		if (fork() == 0) {
			execl(script, script, (char *)NULL);
			_exit(9);
		}
		wait(NULL);
	}
	return status;
}
EOF
cc -static -O1 fake.c -o fake || fail "compile the fake command (static)"
mkdir -p t in logs
echo one >in/a.txt
echo two >in/b.txt
ln -s in/b.txt b.link
A=$PWD/in/a.txt B=$PWD/in/b.txt OUT=$PWD/t/out.img

# explain NAME [LINES...]: NAME, an explain whose one block is the
# action's, holding LINES
explain() {
	local name=$1
	shift
	{
		echo "device link 0: x86_64-pc-linux-gnu generic, 1 image(s), LLVM 22"
		echo "device action: device link for x86_64-pc-linux-gnu -> $OUT"
		printf '  %s\n' "$@"
		echo "1 device link(s) in 0.01 s, 0 from the cache"
	} >"$name"
}
# audit LOG ARGS...: the fake command through the trace step; its status
audit() {
	local log=$1
	shift
	rc=0
	"$AUDIT" trace "$log" ./fake -o "$OUT" "$@" || rc=$?
}

audit logs in/a.txt b.link
[ $rc = 0 ] || fail "trace: exit $rc"
[ -s logs/1.trace ] && [ -s logs/1.json ] || { ls -l logs; fail "trace: no 1.trace and 1.json"; }
[ "$(cat t/out.img)" = "$(printf 'one\ntwo')" ] || fail "trace: the command did not run as itself"
# the key's files named as the link would name them (b by its link)
explain pass "key file: $PWD/fake" "key file: $PWD/in/../in/a.txt" "key file: $PWD/b.link" "key env: PATH"
"$AUDIT" check --cached logs pass >check.out 2>check.err || { cat check.out check.err; fail "check: a complete key failed"; }
[ ! -s check.out ] || { cat check.out; fail "check: a complete key printed something"; }
grep -q '^cache-audit: 1 action(s), 0 problem(s)$' check.err || { cat check.err; fail "check: summary"; }

# a file read, not keyed: one line, the action and the file's real path
explain nob "key file: $PWD/fake" "key file: $A" "key absent: $PWD/nothing"
expect_fail "$AUDIT" check logs nob
[ "$(wc -l <"$SCRATCH/out")" = 1 ] &&
	grep -qx "action 1 (device link for x86_64-pc-linux-gnu -> $OUT): opened, not keyed: $B" "$SCRATCH/out" ||
	{ cat "$SCRATCH/out"; fail "check: the unkeyed file"; }
# the program itself, not keyed
explain noexe "key file: $A" "key file: $B"
expect_fail "$AUDIT" check logs noexe
grep -qx "action 1 (.*): executed, not keyed: $PWD/fake" "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "check: the program"; }

# no block for the action's output
sed "s|-> $OUT|-> $PWD/t/other.img|" pass >noblock
expect_fail "$AUDIT" check logs noblock
grep -q "^action 1 (.*/fake -o $OUT): no 'device action:' block for its output in noblock" "$SCRATCH/out" ||
	{ cat "$SCRATCH/out"; fail "check: no block"; }

# not cached: not compared; with --cached, a failure
explain uncached "not cached: a side output (-Map)"
"$AUDIT" check logs uncached >/dev/null 2>&1 || fail "check: an uncached action was compared"
expect_fail "$AUDIT" check --cached logs uncached
grep -qx "action 1 (.*): not cached: a side output (-Map)" "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "check --cached"; }

# the command's exit status, and a side output
audit logs2 -x 3 -s "$PWD/side.map" in/a.txt in/b.txt
[ $rc = 3 ] || fail "trace: exit $rc for the command's 3"
expect_fail "$AUDIT" check logs2 pass
grep -qx "action 1 (.*): wrote outside its directory: $PWD/side.map" "$SCRATCH/out" ||
	{ cat "$SCRATCH/out"; fail "check: a side output"; }

# a script the command runs: the script, its interpreter (and what that
# loads) and the loader are what the action runs
printf '#!/bin/sh\nread x <%s\n' "$A" >script.sh
chmod +x script.sh
audit logs3 -r "$PWD/script.sh" in/a.txt in/b.txt
[ $rc = 0 ] || fail "trace: a script: exit $rc"
expect_fail "$AUDIT" check logs3 pass
sh=$(readlink -f /bin/sh)
loader=$(readlink -f "$(readelf -l "$sh" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')")
for f in "$PWD/script.sh" "$sh" "$loader"; do
	grep -qx "action 1 (.*): executed, not keyed: $f" "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "check: $f not named"; }
done
grep -q "opened, not keyed: .*/libc\.so\.6$" "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "check: the shell's libc not named"; }

# SIGTERM to the launcher (a link cancelled) ends the command, and the
# launcher ends as the command did (strace itself would exit 0)
"$AUDIT" trace logs4 sleep 100 &
pid=$!
for _ in $(seq 100); do grep -q execve logs4/1.trace 2>/dev/null && break; sleep 0.1; done
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc = 143 ] || fail "trace: SIGTERM: exit $rc, not 143"
grep -q '"status": -15' logs4/1.json || fail "trace: SIGTERM: the command's end not recorded"

# numbered in order: a second action in the same folder
audit logs in/a.txt in/b.txt
[ -s logs/2.json ] || fail "trace: the second action is not 2"
echo "cache-audit: traces actions, names what their keys miss"
