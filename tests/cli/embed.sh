# Core is fit to live inside someone else's linker (docs/design.md, "Living
# inside a linker"): checked on the built library and binaries.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
# core and the link pipeline built on it (linkwrap/) keep the same rules
LIBS="$OFL_BUILD/lib/libofflink.a $OFL_BUILD/lib/libofflink_linkwrap.a"
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
for LIB in $LIBS; do
	[ -f "$LIB" ] || fail "build $LIB first"
done
[ -f "$PLUGIN" ] || fail "build the plugin first"
cat "$OFL_SRC"/core/include/offlink/*.h "$OFL_SRC"/linkwrap/include/offlink/*.h >public.h
for LIB in $LIBS; do

# Every global symbol core defines is ofl_-prefixed.
globals=$(nm -g --defined-only "$LIB" | awk 'NF == 3 {print $3}')
[ -n "$globals" ] || fail "nm found no symbols in $LIB"
bare=$(printf '%s\n' "$globals" | grep -v '^ofl_' || true)
[ -z "$bare" ] || fail "global symbols without the ofl_ prefix: $bare"

# Hidden visibility: the symbols left visible are the public API, each one
# declared in a public header; internal helpers are hidden.
visible=$(readelf -sW "$LIB" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $6 == "DEFAULT" {print $8}' | sort -u)
hidden=$(readelf -sW "$LIB" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $6 == "HIDDEN" {print $8}' | sort -u)
for s in $visible; do
	grep -qw -- "$s" public.h || fail "$s is exported but no public header declares it"
done
printf '%s\n' "$hidden" >>hidden.txt

# No process-wide state: core calls nothing that reads or changes it, and
# keeps no writable statics.
undef=$(nm -u "$LIB" | awk '{print $NF}' | sort -u)
for f in getenv secure_getenv setenv unsetenv putenv umask signal sigaction atexit setlocale \
	bfd_init bfd_openr_iovec; do
	printf '%s\n' "$undef" >undef.txt
	! grep -qx -- "$f" undef.txt || fail "core calls $f"
done
statics=$(objdump -t "$LIB" | awk -F'\t' 'NF == 2 {n = split($1, f, " "); s = f[n];
	if (f[n - 1] == "O" && s ~ /^\.(data|bss|tdata|tbss)/ && s !~ /^\.data\.rel\.ro/) print $2}')
[ -z "$statics" ] || fail "writable statics in $LIB: $statics"
done
for s in ofl_ew_init ofl_grow ofl_malloc ofl_symset_add; do
	grep -qx -- "$s" hidden.txt || fail "internal $s is not hidden"
done

# libbfd: only the offlink binary (ld.offlink is a link to it) needs it,
# and loads it when `offlink inspect` meets a COFF or Mach-O object (e2e
# inspect_artifacts reads one), not at every link; never the plugin nor the
# pkg-config flags.
[ "$(readlink "$OFL_BUILD/bin/ld.offlink")" = offlink ] || fail "ld.offlink is not offlink"
offlink_libs=$(ldd "$OFFLINK")
plugin_libs=$(ldd "$PLUGIN")
case $offlink_libs in *libbfd*) fail "offlink loads libbfd at start: $offlink_libs" ;; esac
strings "$OFFLINK" >strings.txt
grep -q '^libbfd.*\.so' strings.txt || fail "offlink does not name libbfd to load (COFF inspection)"
case $plugin_libs in *libbfd*) fail "the plugin loads libbfd: $plugin_libs" ;; esac
plugin_syms=$(nm -D "$PLUGIN" | awk '{print $NF}')
case $plugin_syms in *bfd_*) fail "the plugin refers to libbfd" ;; esac
[ "$(nm -D --defined-only "$PLUGIN" | awk '{print $3}')" = onload ] || fail "the plugin exports more than onload"
pc=$(PKG_CONFIG_PATH=$OFL_BUILD/lib/pkgconfig pkg-config --libs --static offlink)
case $pc in *bfd*) fail "pkg-config offlink names libbfd: $pc" ;; esac
# libcurl (and the libraries it needs) is loaded only by a link that uses a
# remote cache (e2e link_cache.sh), not by every link
case $offlink_libs$plugin_libs in *libcurl*) fail "offlink or the plugin loads libcurl at start" ;; esac

# Outputs get the mode the umask gives any new file, without core asking
# for the umask (which changes it for a moment), and no temporary is left.
randbytes 1 100 >img
for m in 022 027 077; do
	(umask $m && "$OFFLINK" package -o out.$m --image=file=img,triple=x86_64-pc-linux-gnu)
	want=$(printf '%o' $((0666 & ~0$m)))
	[ "$(stat -c %a out.$m)" = "$want" ] || fail "umask $m: mode $(stat -c %a out.$m), not $want"
done
leftover=$(ls -a | grep '\.ofl-' || true)
[ -z "$leftover" ] || fail "temporary left behind: $leftover"
echo ok
