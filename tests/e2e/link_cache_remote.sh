#!/usr/bin/env bash
# The shared remote cache where it misbehaves or asks for credentials
# (issue 23, items 6 to 9), through real clang links, a real nginx on
# 127.0.0.1 and small misbehaving servers in python:
#  - an answer larger than the entry the action names (a 1.5 GiB body for
#    a 100-byte image) is refused, not buffered: the link's peak memory
#    stays small;
#  - credentials (the URL's user:password, a netrc file, a header) reach
#    nginx's auth_basic, and the password is in no message nor --explain;
#  - SIGTERM ends ld.offlink at once while the remote is silent, whatever
#    its timeout, and it dies of the signal;
#  - a remote that refuses uploads is still read for the rest of the link;
#  - a slow network uploads a 4 MB image (the timeout is for connecting and
#    stalls, not whole transfers); the URL's query (a token) is kept on
#    every request and shown in no message.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" nginx openssl python3 curl cmp base64
counted_omp_program
# olink OUT [ARGS...]: a link with its own empty local store; stderr in
# OUT.err, --explain in OUT.explain
olink() {
	local out=$1
	shift
	rm -f ran
	OFFLINK_CACHE_DIR=$PWD/local-$out "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" \
		main.o kern.o -L$RT -Wl,--device-launcher="$PWD/launch" -Wl,--explain="$PWD/$out.explain" \
		"$@" -o "$out" 2>"$out.err" || { cat "$out.err"; fail "link $out"; }
}
# wait_file F: until the server that makes F is listening
wait_file() {
	for _ in $(seq 100); do [ -e "$1" ] && return; sleep 0.1; done
	fail "$1: the server did not start"
}

# ---- a body larger than the action says: refused, not buffered --------------
cat >huge.py <<'EOF'
# GET .../ac/*: an ActionResult naming a 100-byte image; GET .../cas/*: a
# 1.5 GiB body, sent until the client hangs up (the bytes sent counted).
import hashlib, http.server, sys
blob = b"x" * 100
digest = hashlib.sha256(blob).hexdigest().encode()
def field(num, b):
    return bytes([num << 3 | 2, len(b)]) + b
d = field(1, digest) + bytes([2 << 3, 100])
action = field(2, field(1, b"image") + field(2, d))
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        body = action if "/ac/" in self.path else None
        self.send_response(200)
        self.send_header("Content-Length", str(len(body) if body else 3 << 29))
        self.end_headers()
        if body:
            self.wfile.write(body)
            return
        sent, chunk = 0, b"\0" * (1 << 20)
        try:
            while sent < 3 << 29:
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass
        with open("huge.sent", "a") as f:
            print(sent, file=f)
        self.close_connection = True
    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
open("huge.ready", "w").close()
s.serve_forever()
EOF
port=$(free_port)
python3 huge.py "$port" &
HUGE=$!
wait_file huge.ready
rm -f ran
OFFLINK_CACHE_DIR=$PWD/local-huge OFFLINK_CACHE_REMOTE=http://127.0.0.1:$port \
	/usr/bin/time -f %M -o huge.rss "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" \
	main.o kern.o -L$RT -Wl,--device-launcher="$PWD/launch" -o huge 2>huge.err ||
	{ cat huge.err; fail "link against a remote answering too much"; }
kill $HUGE
rss_kib=$(tail -1 huge.rss)
echo "peak memory of the link's processes with a 1.5 GiB answer: $((rss_kib / 1024)) MiB"
[ "$(ran)" = 1 ] && grep -q 'an answer larger than the entry it names; not used' huge.err ||
	{ cat huge.err; fail "a body larger than its action was not refused"; }
[ "$rss_kib" -lt $((256 * 1024)) ] || fail "peak memory $((rss_kib / 1024)) MiB: the body was buffered"
./huge >huge.out && diff -u "$SRC/expected.txt" huge.out || fail "the program"

# ---- nginx: credentials, and uploads refused --------------------------------
port=$(free_port)
mkdir -p ngx/www/team ngx/www/auth ngx/tmp
secret=s3cret-$$-pw
printf 'ofl:%s\n' "$(openssl passwd -apr1 "$secret")" >ngx/htpasswd
start_nginx $port '		location /auth/ {
			auth_basic "offlink";
			auth_basic_user_file '"$PWD"'/ngx/htpasswd;
			dav_methods PUT;
			create_full_put_path on;
		}
		location /ro/ {
			alias '"$PWD"'/ngx/www/team/;
			limit_except GET { deny all; }
		}'
url=http://127.0.0.1:$port/auth/
# no credentials: refused, said, the link goes on
OFFLINK_CACHE_REMOTE=$url olink anon
[ "$(ran)" = 1 ] && grep -q "remote cache $url\?: GET: an unexpected HTTP status" anon.err ||
	{ cat anon.err; fail "a remote that wants credentials"; }
# in the URL: stores; a wrong password is said without the URL's password
OFFLINK_CACHE_REMOTE=http://ofl:$secret@127.0.0.1:$port/auth/ olink inurl
[ "$(ran)" = 1 ] && [ -n "$(ls ngx/www/auth/ac)" ] || { cat inurl.err; fail "credentials in the URL"; }
OFFLINK_CACHE_REMOTE=http://ofl:wrong-$secret@127.0.0.1:$port/auth/ olink wrong
grep -q "remote cache http://127.0.0.1:$port/auth: GET: an unexpected HTTP status" wrong.err ||
	{ cat wrong.err; fail "a wrong password in the URL"; }
OFFLINK_CACHE_REMOTE=ftp://ofl:$secret@x olink nourl
grep -q "remote cache 'ftp://x': expected an http:// or https:// URL" nourl.err ||
	{ cat nourl.err; fail "a remote that is no URL"; }
# a netrc file: a hit from the remote
printf 'machine 127.0.0.1 login ofl password %s\n' "$secret" >creds.netrc
OFFLINK_CACHE_REMOTE=$url OFFLINK_CACHE_REMOTE_NETRC=$PWD/creds.netrc olink netrc
[ "$(ran)" = 0 ] && grep -q 'cache hit (remote)' netrc.explain || { cat netrc.err; fail "netrc"; }
# $NETRC, as Bazel reads it
OFFLINK_CACHE_REMOTE=$url NETRC=$PWD/creds.netrc olink netrc2
[ "$(ran)" = 0 ] || { cat netrc2.err; fail "\$NETRC"; }
# a header
OFFLINK_CACHE_REMOTE=$url OFFLINK_CACHE_REMOTE_HEADER="Authorization: Basic $(printf 'ofl:%s' "$secret" | base64)" \
	olink header
[ "$(ran)" = 0 ] && grep -q 'cache hit (remote)' header.explain || { cat header.err; fail "header"; }
OFFLINK_CACHE_REMOTE=$url OFFLINK_CACHE_REMOTE_HEADER="Bearer $secret" olink badheader
grep -q "OFFLINK_CACHE_REMOTE_HEADER: expected one 'Name: value'" badheader.err ||
	{ cat badheader.err; fail "a header that is none"; }
! grep -l -- "$secret" ./*.err ./*.explain || fail "a password was shown"

# uploads refused (GET only): the rest of the link still reads.  LLVM 19's
# links cache two commands, an LTO step then the device link: the store
# holds both but the LTO step's action, so the LTO step misses and its
# upload is refused, and the device link then hits.
RT19=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
if [ -x "$LLVM19/llvm-lto2" ] && [ -e "$RT19/libomptarget.devicertl.a" ]; then
	cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
	"$LLVM19/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC \
		-c "$OFL_SRC/tests/interop/wrap_stub_src/omp.c" -o omp19.o || fail "clang 19 -c"
	link19() {
		local out=$1 remote=$2
		OFFLINK_CACHE_DIR=$PWD/local-$out OFFLINK_CACHE_REMOTE=$remote "$LLVM19/clang" -fopenmp \
			-fuse-ld=offlink -B"$OFL_BUILD/bin" stub.o omp19.o -L"$RT19" -rdynamic -ldl \
			-Wl,-j1 -Wl,--explain=$out.explain -o $out 2>$out.err || { cat $out.err; fail "link $out"; }
	}
	: >ngx/access.log
	link19 seed http://127.0.0.1:$port/team/
	grep -c 'PUT /team/ac/' ngx/access.log | grep -qx 2 || { cat ngx/access.log; fail "seeding"; }
	lto=$(grep -o 'GET /team/ac/[0-9a-f]*' ngx/access.log | head -1 | sed 's|.*/||')
	rm ngx/www/team/ac/"$lto"
	: >ngx/access.log
	link19 refused http://127.0.0.1:$port/ro/
	grep -q 'LTO for .*, cache miss' refused.explain &&
		grep -q 'device link for .*, cache hit (remote)' refused.explain ||
		{ cat refused.explain ngx/access.log; fail "a refused upload turned off remote reads"; }
	grep -q "PUT: the upload was refused; no uploads for the rest of this link" refused.err ||
		{ cat refused.err; fail "the refused upload was not said"; }
	[ "$(grep -c '"PUT ' ngx/access.log)" = 1 ] || { cat ngx/access.log; fail "uploads went on"; }
	cmp seed refused || fail "the program linked from the read-only remote"
else
	echo "LLVM 19's llvm-lto2 or device runtime missing: refused uploads not tried"
fi
kill $NGINX
wait $NGINX 2>/dev/null || true

# ---- a slow network: a 4 MB image uploads at 1 MB/s --------------------------
# The timeout bounds connecting and stalls, not a whole transfer (once, a
# 2 s limit on each request kept a 4 MB image from ever uploading, each
# miss waited 2 s, and the failed upload turned reads off too).
cat >slow.py <<'EOF'
# A remote cache behind a slow network: it reads uploads at 1 MB/s from a
# small socket buffer (so that the sender's bytes wait on its side, as on
# a slow link) and keeps them in memory.
import http.server, socket, sys, time
store = {}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        body = store.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")
    def do_PUT(self):
        left, parts = int(self.headers["Content-Length"]), []
        while left:
            b = self.rfile.read(min(left, 100000))
            parts.append(b)
            left -= len(b)
            time.sleep(0.1)
        store[self.path] = b"".join(parts)
        with open("slow.log", "a") as f:
            print("PUT", self.path, len(store[self.path]), file=f)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
class S(http.server.ThreadingHTTPServer):
    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        super().server_bind()
s = S(("127.0.0.1", int(sys.argv[1])), H)
open("slow.ready", "w").close()
s.serve_forever()
EOF
# a 4 MB device image: a table the device code keeps
cat >big.c <<'EOF'
#pragma omp declare target
__attribute__((used)) static const unsigned char big[4 << 20] = {[0 ...(4 << 20) - 1] = 7};
#pragma omp end declare target
int main(void)
{
	int s = 0;
#pragma omp target map(from : s)
	s = 1;
	return !s;
}
EOF
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c big.c -o big.o || fail "compile big.c"
port=$(free_port)
python3 slow.py "$port" &
SLOW=$!
wait_file slow.ready
# blink OUT: big.o linked with the remote, its URL carrying a token
blink() {
	rm -f ran
	OFFLINK_CACHE_DIR=$PWD/local-$1 OFFLINK_CACHE_REMOTE="http://127.0.0.1:$port/c?token=tok-$$" \
		"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" big.o -L$RT \
		-Wl,--device-launcher="$PWD/launch" -Wl,--explain="$PWD/$1.explain" -o "$1" 2>"$1.err" ||
		{ cat "$1.err"; fail "link $1"; }
}
blink slow1
[ "$(ran)" = 1 ] && [ ! -s slow1.err ] || { cat slow1.err; fail "the slow upload was given up"; }
grep -Eq "^PUT /c/cas/[0-9a-f]{64}\?token=tok-$$ [0-9]{7}" slow.log ||
	{ cat slow.log; fail "the image was not uploaded, or not with the URL's query"; }
blink slow2
[ "$(ran)" = 0 ] && grep -q 'cache hit (remote)' slow2.explain || { cat slow2.err; fail "no remote hit"; }
cmp slow1 slow2 || fail "the program linked from the remote differs"
kill $SLOW
wait $SLOW 2>/dev/null || true
# a stall when read: said once, without the URL's query
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open("stall.ready", "w").close()
kept = [s.accept()[0] for _ in range(4)]
time.sleep(60)
' "$port" &
STALL=$!
wait_file stall.ready
OFFLINK_CACHE_REMOTE_TIMEOUT_MS=300 blink stall
grep -q "remote cache http://127.0.0.1:$port/c: GET: Timeout was reached; not used" stall.err ||
	{ cat stall.err; fail "a stalled read"; }
! grep -q "tok-$$" stall.err stall.explain || fail "the URL's query was shown"
kill $STALL
wait $STALL 2>/dev/null || true

# ---- a remote that trickles: one timeout, not the hours its bytes take -------
# Its answer comes a byte every 0.1 s, each sooner than the timeout (the
# stall never fired: a 100 kB answer held the link for hours); a transfer
# must move 16 kB a second over each timeout's window.
port=$(free_port)
python3 -c '
import socket, sys, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open("trickle.ready", "w").close()
def serve(c):
    try:
        c.recv(65536)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(100000):
            c.sendall(b"x")
            time.sleep(0.1)
    except OSError:
        pass
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
' "$port" &
TRICKLE=$!
wait_file trickle.ready
rc=0
OFFLINK_CACHE_DIR=$PWD/local-trickle OFFLINK_CACHE_REMOTE=http://127.0.0.1:$port/c \
	OFFLINK_CACHE_REMOTE_TIMEOUT_MS=300 timeout -k 5 60 "$LLVM22/clang" -fopenmp -fuse-ld=offlink \
	-B"$OFL_BUILD/bin" big.o -L$RT -o trickle 2>trickle.err || rc=$?
kill $TRICKLE
wait $TRICKLE 2>/dev/null || true
[ $rc = 0 ] || fail "a trickling remote held the link (exit $rc: killed after 60 s)"
grep -q "remote cache http://127.0.0.1:$port/c: GET: Timeout was reached; not used" trickle.err ||
	{ cat trickle.err; fail "a trickling remote was not given up"; }
[ "$(grep -c 'remote cache' trickle.err)" = 1 ] || { cat trickle.err; fail "said more than once"; }

# ---- SIGTERM while the remote is silent: ld.offlink ends at once -------------
port=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open("silent.ready", "w").close()
kept = [s.accept()[0]]
open("silent.accepted", "w").close()
time.sleep(60)
' "$port" &
SILENT=$!
wait_file silent.ready
# ld.offlink, its process id and exit status kept
mkdir -p bin
cat >bin/ld.offlink <<EOF
#!/bin/bash
"$OFL_BUILD/bin/ld.offlink" "\$@" &
echo \$! >$PWD/ld.pid
wait \$!
rc=\$?
echo \$rc >$PWD/ld.rc
exit \$rc
EOF
chmod +x bin/ld.offlink
OFFLINK_CACHE_DIR=$PWD/local-term OFFLINK_CACHE_REMOTE=http://127.0.0.1:$port \
	OFFLINK_CACHE_REMOTE_TIMEOUT_MS=30000 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$PWD/bin" \
	main.o kern.o -L$RT -o term 2>term.err &
CLANG=$!
wait_file silent.accepted
wait_file ld.pid
sleep 0.2 # in the transfer
t0=$(date +%s%N)
kill -TERM "$(cat ld.pid)"
for _ in $(seq 300); do [ -e ld.rc ] && break; sleep 0.01; done
t1=$(date +%s%N)
wait $CLANG 2>/dev/null || true
kill $SILENT
ms=$(((t1 - t0) / 1000000))
echo "ld.offlink ended ${ms} ms after SIGTERM (remote silent, timeout 30 s)"
[ -e ld.rc ] || fail "ld.offlink still ran 3 s after SIGTERM"
[ "$(cat ld.rc)" = 143 ] || { cat term.err; fail "ld.offlink's status $(cat ld.rc), not SIGTERM's"; }
! grep -q 'remote cache' term.err || { cat term.err; fail "a cancelled transfer was reported"; }
echo "remote cache: bounded answers, hidden credentials, prompt cancellation, reads after refused uploads"
