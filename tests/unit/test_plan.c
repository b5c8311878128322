/* The plan as data (offlink/link.h, ofl_link_plan): one test per decision,
 * asserting on the plan's fields, never on log text.  The link's PATH is
 * empty and its LLVM installations are a fake root of the test's, so
 * what is decided does not depend on the machine: no process runs (no
 * device-link cache: clang's driver is not asked what it runs), except in
 * "not cacheable, because", which asks the real clang 22. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/buf.h"
#include "offlink/io.h"
#include "offlink/ldcmd.h"
#include "offlink/link.h"
#include "offlink/offload_binary.h"
#include "offlink/wrapper_obj.h"

static int sh(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		fprintf(stderr, "failed: %s\n", cmd);
	return rc;
}

/* An OffloadBinary file of image file dev (its kind, triple and arch). */
static int obin(const char *path, const char *dev, uint16_t kind, const char *triple,
                const char *arch)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	const char *k[2] = {"triple", "arch"}, *v[2] = {triple, arch};
	if (ofl_file_open(&f, dev, &e))
		return -1;
	struct ofl_obin_image im = {OFL_IMG_OBJECT, kind, 0, f.data, f.size, 2, k, v};
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = ofl_obin_write(&im, &b, &e) || ofl_write_file(path, b.data, b.len, &e);
	ofl_buf_release(&b);
	ofl_file_close(&f);
	return rc;
}

/* name.o: host code src, and device code dev_src (an ELF object: its
 * symbols are what device rules read) for triple and arch as an OpenMP
 * image in .llvm.offloading; entries: the section its entry table is in
 * ("llvm_offload_entries": LLVM 20+; "omp_offloading_entries": 19), or
 * NULL.  Compiled by cc -c (no producer LLVM in .comment). */
static int object(const char *name, const char *src, const char *dev_src, const char *triple,
                  const char *arch, const char *entries)
{
	char cmd[2048];
	FILE *f;
	snprintf(cmd, sizeof(cmd), "%s.c", name);
	if (!(f = fopen(cmd, "w")))
		return -1;
	fprintf(f, "%s\n", src);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s_dev.c", name);
	if (!(f = fopen(cmd, "w")))
		return -1;
	fprintf(f, "%s\n", dev_src);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -fPIC -c %s.c -o %s.o && cc -fPIC -c %s_dev.c -o %s_dev.o",
	         name, name, name, name);
	if (sh(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s.obin", name);
	char dev[256];
	snprintf(dev, sizeof(dev), "%s_dev.o", name);
	if (obin(cmd, dev, OFL_OFK_OPENMP, triple, arch))
		return -1;
	/* in .llvm.offloading, and an entry table of one OpenMP entry (kind 1
	 * at offset 10 of its 56 bytes) in section entries */
	snprintf(cmd, sizeof(cmd), "objcopy --add-section .llvm.offloading=%s.obin %s.o", name,
	         name);
	if (sh(cmd))
		return -1;
	if (!entries)
		return 0;
	snprintf(cmd, sizeof(cmd),
	         "printf '\\0\\0\\0\\0\\0\\0\\0\\0\\1\\0\\1\\0' >%s.ent && "
	         "head -c 44 /dev/zero >>%s.ent && objcopy --add-section %s=%s.ent %s.o",
	         name, name, entries, name, name);
	return sh(cmd);
}

/* A fake LLVM installation root/llvm-<v>: bin/clang (never run), and
 * lib/libomptarget.so. */
static int fake_llvm(unsigned v)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p root/llvm-%u/bin root/llvm-%u/lib && printf '#!/bin/sh\\nexit 1\\n' "
	         ">root/llvm-%u/bin/clang && chmod +x root/llvm-%u/bin/clang && "
	         "touch root/llvm-%u/lib/libomptarget.so",
	         v, v, v, v, v);
	return sh(cmd);
}

struct run {
	struct ofl_ldcmd c;
	struct ofl_link *l;
	struct ofl_link_plan p;
	struct ofl_error e;
	int rc;
};

/* The plan of host command line argv (words separated by blanks) with
 * options o (its host command, roots and PATH filled in). */
static void plan(struct run *r, const char *line, struct ofl_link_opts o)
{
	char *copy = strdup(line), *argv[64], *save = NULL;
	int argc = 0;
	for (char *t = strtok_r(copy, " ", &save); t && argc < 64; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	static char cwd[4096], root[4200];
	snprintf(root, sizeof(root), "%s/root", getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	const char *rootv[1] = {root};
	*r = (struct run){OFL_LDCMD_INIT, NULL, {.action = OFL_PLAN_UNCHANGED}, OFL_ERROR_INIT, 0};
	r->rc = ofl_ldcmd_parse(&r->c, OFL_LDCMD_GNU, argc, argv, NULL, &r->e);
	o.jobserver_rfd = o.jobserver_wfd = -1;
	o.tmpdir = ".";
	o.host_cmd = &r->c;
	o.search_path = ""; /* nothing found on PATH */
	o.llvm_roots = rootv;
	o.nllvm_roots = 1;
	r->rc = r->rc ? r->rc : ofl_link_open(&r->l, &o, &r->e);
	r->rc = r->rc ? r->rc : ofl_link_plan(r->l, &r->p, &r->e);
	free(copy);
}

static void done(struct run *r)
{
	ofl_link_free(r->l);
	ofl_ldcmd_release(&r->c);
}

static const struct ofl_plan_unit *unit(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->p.nunits; i++)
		if (!strcmp(r->p.units[i].name, name))
			return &r->p.units[i];
	return NULL;
}

static struct ofl_link_opts opts(void)
{
	struct ofl_link_opts o = {0};
	return o;
}

static const char cpu[] = "x86_64-pc-linux-gnu";

/* main.o calls k(); libk.a(k.o) defines k and has device code, libk.a(j.o)
 * too but nobody calls j. */
static int kernel_library(void)
{
	return fake_llvm(22) ||
	       object("main", "int k(void); int main(void) { return k(); }", "int dmain;", cpu, "",
	              "llvm_offload_entries") ||
	       object("k", "int k(void) { return 1; }", "int dk(void) { return 2; }", cpu, "",
	              "llvm_offload_entries") ||
	       object("j", "int j(void) { return 1; }", "int dj(void) { return 3; }", cpu, "",
	              "llvm_offload_entries") ||
	       sh("rm -f libk.a && ar rcs libk.a k.o j.o");
}

/* An object's device code is taken; one group, one device action. */
OFL_TEST(plan_object)
{
	struct run r;
	CHECK(kernel_library() == 0);
	plan(&r, "main.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.action, OFL_PLAN_ADD);
	const struct ofl_plan_unit *u = unit(&r, "main.o");
	CHECK(u && u->taken && u->device && u->nimages == 1);
	CHECK_STR(u->why, "an object of the link");
	CHECK_EQ_U(r.p.ngroups, 1);
	CHECK_STR(r.p.groups[0].triple, cpu);
	CHECK_EQ_U(r.p.groups[0].nimages, 1);
	CHECK_EQ_U(r.p.nactions, 1);
	CHECK(!r.p.actions[0].lto && r.p.actions[0].argc > 0);
	done(&r);
}

/* An archive member the host link pulls by its index (the symbol main.o
 * leaves undefined) is taken; the other is not. */
OFL_TEST(plan_archive_index)
{
	struct run r;
	CHECK(kernel_library() == 0);
	plan(&r, "main.o libk.a -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	const struct ofl_plan_unit *k = unit(&r, "libk.a(k.o)"), *j = unit(&r, "libk.a(j.o)");
	CHECK(k && k->taken && k->device);
	CHECK_STR(k->why, "the host link pulls it");
	CHECK(j && !j->taken && !j->device && !j->why);
	CHECK_EQ_U(r.p.groups[0].nimages, 2);
	done(&r);
}

/* Archives of a --start-group are scanned together: a member of the first
 * needed by one of the second is pulled; without the group, lld pulls it
 * too (GNU ld leaves it: its link fails), and so it is taken. */
OFL_TEST(plan_archive_group)
{
	struct run r;
	CHECK(kernel_library() == 0);
	CHECK(object("m2", "int k2(void); int main(void) { return k2(); }", "int dm2;", cpu, "",
	             "llvm_offload_entries") == 0);
	CHECK(object("k2", "int j(void); int k2(void) { return j(); }", "int dk2;", cpu, "",
	             "llvm_offload_entries") == 0);
	CHECK(sh("rm -f libk2.a && ar rcs libk2.a k2.o") == 0);
	plan(&r, "m2.o libk.a libk2.a -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk2.a(k2.o)")->taken && unit(&r, "libk.a(j.o)")->taken);
	CHECK_STR(unit(&r, "libk.a(j.o)")->why, "lld pulls it (an archive before the reference)");
	CHECK(!unit(&r, "libk.a(k.o)")->taken);
	done(&r);
	plan(&r, "m2.o --start-group libk.a libk2.a --end-group -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk.a(j.o)")->taken && unit(&r, "libk.a(j.o)")->device);
	done(&r);
}

/* --whole-archive takes every member. */
OFL_TEST(plan_whole_archive)
{
	struct run r;
	CHECK(kernel_library() == 0);
	plan(&r, "main.o --whole-archive libk.a --no-whole-archive -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk.a(j.o)")->taken);
	CHECK_STR(unit(&r, "libk.a(j.o)")->why, "--whole-archive");
	CHECK_EQ_U(r.p.groups[0].nimages, 3);
	done(&r);
}

/* -u SYM and a linker script's EXTERN(SYM) make SYM undefined: the member
 * defining it is pulled. */
OFL_TEST(plan_undefined_and_extern)
{
	struct run r;
	CHECK(kernel_library() == 0);
	plan(&r, "main.o -u j libk.a -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk.a(j.o)")->taken);
	done(&r);
	CHECK(sh("printf 'EXTERN(j)\\nINPUT(libk.a)\\n' >ext.ld") == 0);
	plan(&r, "main.o ext.ld -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk.a(j.o)") && unit(&r, "libk.a(j.o)")->taken);
	done(&r);
}

/* The member j.o of libk.a is taken (or not) for the host line. */
static bool j_taken(const char *line)
{
	struct run r;
	plan(&r, line, opts());
	const struct ofl_plan_unit *u = r.rc ? NULL : unit(&r, "libk.a(j.o)");
	bool taken = u && u->taken && u->device;
	if (r.rc)
		fprintf(stderr, "%s: %s\n", line, r.e.msg);
	done(&r);
	return taken;
}

/* --defsym's expression references its symbols (not a function's name, a
 * number, '.'); --wrap=S references __wrap_S, and a reference to
 * __real_S is one to S; lld's --undefined-glob references what it
 * matches: each pulls the member defining the symbol, as GNU ld, gold and
 * lld do. */
OFL_TEST(plan_defsym_wrap_glob)
{
	CHECK(kernel_library() == 0);
	CHECK(object("wk", "int j(void); int __wrap_k(void) { return j(); }", "int dwk;", cpu, "",
	             "llvm_offload_entries") == 0);
	CHECK(object("rj", "int __real_j(void); int main(void) { return __real_j(); }", "int drj;",
	             cpu, "", "llvm_offload_entries") == 0);
	CHECK(object("mj", "int j(void); int main(void) { return j(); }", "int dmj;", cpu, "",
	             "llvm_offload_entries") == 0);
	CHECK(sh("rm -f libw.a && ar rcs libw.a wk.o") == 0);
	CHECK(j_taken("main.o --defsym=x=j libk.a -o out"));
	CHECK(j_taken("main.o --defsym x=4+ABSOLUTE(j)*2 libk.a -o out"));
	CHECK(j_taken("mj.o --defsym=j=k libk.a -o out")); /* lld pulls j.o */
	CHECK(!j_taken("main.o --defsym=x=0x10+ALIGN(8) libk.a -o out"));
	CHECK(!j_taken("main.o --defsym=x=. libk.a -o out"));
	CHECK(j_taken("main.o --wrap=k libw.a libk.a -o out"));
	CHECK(!j_taken("main.o libw.a libk.a -o out"));
	CHECK(j_taken("rj.o --wrap=j libk.a -o out"));
	CHECK(!j_taken("rj.o libk.a -o out"));
	CHECK(j_taken("main.o --undefined-glob=[ij]* libk.a -o out"));
	CHECK(j_taken("main.o -undefined-glob *j libk.a -o out"));
	CHECK(!j_taken("main.o --undefined-glob=z* libk.a -o out"));
}

/* A linker script's assignments reference the symbols of their
 * expressions, ENTRY its symbol. */
OFL_TEST(plan_script_references)
{
	CHECK(kernel_library() == 0);
	CHECK(sh("printf 'x = ABSOLUTE(j) + 1;\nINPUT(libk.a)\n' >a.ld && "
	         "printf 'PROVIDE_HIDDEN(y = j);\nINPUT(libk.a)\n' >p.ld && "
	         "printf 'ENTRY(j)\nINPUT(libk.a)\n' >e.ld && "
	         "printf 'x = 0x10 + SIZEOF(.text);\nINPUT(libk.a)\n' >n.ld") == 0);
	CHECK(j_taken("main.o a.ld -o out"));
	CHECK(j_taken("main.o p.ld -o out"));
	CHECK(j_taken("main.o e.ld -o out"));
	CHECK(!j_taken("main.o n.ld -o out"));
}

/* A shared object's undefined (non-weak) symbol is a reference: it pulls
 * the member defining it. */
OFL_TEST(plan_shared_object_reference)
{
	struct run r;
	CHECK(kernel_library() == 0);
	CHECK(sh("printf 'int j(void);\\nint use(void) { return j(); }\\n' >use.c && "
	         "cc -shared -fPIC use.c -o libuse.so") == 0);
	plan(&r, "main.o libuse.so libk.a -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK(unit(&r, "libk.a(j.o)")->taken);
	CHECK_STR(unit(&r, "libk.a(j.o)")->why, "the host link pulls it");
	done(&r);
}

/* Device code only the device code needs: a member the host link leaves
 * out whose image defines a symbol the taken images use is linked there
 * (device, not taken). */
OFL_TEST(plan_device_only_symbol)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(object("dm", "int main(void) { return 0; }",
	             "int helper(void); int f(void) { return helper(); }", cpu, "",
	             "llvm_offload_entries") == 0);
	CHECK(object("dh", "int unused_host(void) { return 0; }", "int helper(void) { return 7; }",
	             cpu, "", "llvm_offload_entries") == 0);
	CHECK(sh("rm -f libdh.a && ar rcs libdh.a dh.o") == 0);
	plan(&r, "dm.o libdh.a -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	const struct ofl_plan_unit *u = unit(&r, "libdh.a(dh.o)");
	CHECK(u && !u->taken && u->device);
	CHECK_EQ_U(r.p.groups[0].nimages, 2);
	done(&r);
}

/* The release that links a group: the objects' entry tables when the
 * images do not say (LLVM 19's per-language tables: 19), else the newest
 * installed; LLVM 19's form. */
OFL_TEST(plan_release_and_form)
{
	struct run r;
	CHECK(fake_llvm(22) == 0 && fake_llvm(19) == 0);
	CHECK(object("r19", "int main(void) { return 0; }", "int d19;", cpu, "",
	             "omp_offloading_entries") == 0);
	CHECK(object("r22", "int main(void) { return 0; }", "int d22;", cpu, "", NULL) == 0);
	plan(&r, "r19.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].llvm, 19);
	CHECK_STR(r.p.groups[0].llvm_why, "the objects' entry tables");
	CHECK_EQ_U(r.p.groups[0].form, OFL_FORM_LLVM19);
	CHECK_EQ_U(r.p.groups[0].lto, OFL_LTO_NONE);
	CHECK_EQ_U(r.p.nwraps, 1);
	CHECK_EQ_U(r.p.wraps[0].abi, OFL_WRAP_LLVM19);
	done(&r);
	plan(&r, "r22.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].llvm, 22);
	CHECK_STR(r.p.groups[0].llvm_why, "the newest installed");
	CHECK_EQ_U(r.p.groups[0].form, OFL_FORM_LLVM20);
	CHECK_EQ_U(r.p.wraps[0].kind, OFL_WRAP_OPENMP);
	CHECK_EQ_U(r.p.wraps[0].abi, OFL_WRAP_LLVM20);
	done(&r);
}

/* Objects whose entry tables ask for different registrations cannot be one
 * program: an error naming one of each, before any device link. */
OFL_TEST(plan_mixed_abi)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(object("a19", "int a(void) { return 0; }", "int da;", cpu, "",
	             "omp_offloading_entries") == 0);
	CHECK(object("a22", "int main(void) { return 0; }", "int db;", cpu, "",
	             "llvm_offload_entries") == 0);
	plan(&r, "a22.o a19.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_EINVAL);
	CHECK(strstr(r.e.msg, "need different registrations") && strstr(r.e.msg, "a19.o") &&
	      strstr(r.e.msg, "a22.o"));
	done(&r);
}

/* name.o: host code and a SYCL image (offload kind 8, an ELF object's
 * bytes) for triple, arch "generic". */
static int sycl_object(const char *name, const char *triple)
{
	char cmd[1024], bin[256];
	snprintf(cmd, sizeof(cmd),
	         "echo 'int %s_host;' >%s.c && cc -fPIC -c %s.c -o %s.o && cp %s.o %s_dev.o", name,
	         name, name, name, name, name);
	snprintf(bin, sizeof(bin), "%s.obin", name);
	char dev[256];
	snprintf(dev, sizeof(dev), "%s_dev.o", name);
	if (sh(cmd) || obin(bin, dev, OFL_OFK_SYCL, triple, "generic"))
		return -1;
	snprintf(cmd, sizeof(cmd), "objcopy --add-section .llvm.offloading=%s %s.o", bin, name);
	return sh(cmd);
}

/* A word of action a's command, or false. */
static bool has_word(const struct ofl_device_action *a, const char *w)
{
	for (size_t i = 0; i < a->argc; i++)
		if (!strcmp(a->argv[i], w))
			return true;
	return false;
}

/* SYCL code: one group linked through clang --sycl-link, wrapped with
 * LLVM 22's registration (23's acting as 23); what LLVM does not link
 * right is an error before any device link. */
OFL_TEST(plan_sycl)
{
	struct run r;
	const char *spirv = "spirv64-unknown-unknown";
	CHECK(fake_llvm(22) == 0 && sycl_object("s1", spirv) == 0 &&
	      sycl_object("s2", "spirv32-unknown-unknown") == 0);
	CHECK(object("o1", "int o1;", "int d1;", spirv, "generic", NULL) == 0);
	plan(&r, "s1.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.ngroups, 1);
	CHECK_EQ_U(r.p.groups[0].kind, OFL_OFK_SYCL);
	CHECK(has_word(&r.p.actions[0], "--sycl-link") &&
	      has_word(&r.p.actions[0], "-triple=spirv64-unknown-unknown") &&
	      has_word(&r.p.actions[0], "-arch="));
	CHECK_EQ_U(r.p.nwraps, 1);
	CHECK_EQ_U(r.p.wraps[0].kind, OFL_WRAP_SYCL);
	CHECK_EQ_U(r.p.wraps[0].abi, OFL_WRAP_LLVM20);
	CHECK(r.p.wraps[0].sycl_desc);
	done(&r);
	struct ofl_link_opts as23 = opts();
	as23.llvm_release = 23;
	plan(&r, "s1.o -o out", as23);
	CHECK_EQ_U(r.rc, 0);
	CHECK(!r.p.wraps[0].sycl_desc);
	done(&r);
	plan(&r, "s1.o s2.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_EUNSUPPORTED);
	CHECK(strstr(r.e.msg, "SYCL device code for two targets") != NULL);
	done(&r);
	plan(&r, "s1.o o1.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_EUNSUPPORTED);
	CHECK(strstr(r.e.msg, "Linking images of SYCL offload kind") != NULL);
	done(&r);
	struct ofl_link_opts rel = opts();
	rel.relocatable = true; /* LLVM's relocatable mode */
	plan(&r, "-r s1.o -o out.o", rel);
	CHECK_EQ_U(r.rc, OFL_EUNSUPPORTED);
	CHECK(strstr(r.e.msg, "relocatable link") != NULL);
	done(&r);
}

/* A CPU group needs no device runtime. */
OFL_TEST(plan_runtime_none)
{
	struct run r;
	CHECK(kernel_library() == 0);
	plan(&r, "main.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].runtime, OFL_RUNTIME_NONE);
	CHECK(r.p.groups[0].runtime_path == NULL);
	done(&r);
}

static int gpu_object(void)
{
	return fake_llvm(22) || object("g", "int main(void) { return 0; }", "int dg;",
	                               "amdgcn-amd-amdhsa", "gfx90a", "llvm_offload_entries");
}

/* LLVM 20+'s runtime, libompdevice.a in the LLVM's lib/<triple>: found
 * when the plan is made; missing, an error naming it then. */
OFL_TEST(plan_runtime_library)
{
	struct run r;
	CHECK(gpu_object() == 0);
	CHECK(sh("rm -rf root/llvm-22/lib/amdgcn-amd-amdhsa") == 0);
	plan(&r, "g.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_ENOTFOUND);
	CHECK(strstr(r.e.msg, "amdgcn-amd-amdhsa/libompdevice.a is not installed"));
	CHECK(r.l && r.p.nactions == 0);
	done(&r);
	CHECK(sh("mkdir -p root/llvm-22/lib/amdgcn-amd-amdhsa && "
	         "touch root/llvm-22/lib/amdgcn-amd-amdhsa/libompdevice.a") == 0);
	plan(&r, "g.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].runtime, OFL_RUNTIME_LIBRARY);
	CHECK(strstr(r.p.groups[0].runtime_path, "root/llvm-22/lib/amdgcn-amd-amdhsa"));
	done(&r);
}

/* --nogpulib leaves the runtime out; a driver that runs the personality
 * passes its own. */
OFL_TEST(plan_runtime_off_and_driver)
{
	struct run r;
	CHECK(gpu_object() == 0);
	struct ofl_link_opts o = opts();
	o.no_device_runtime = true;
	plan(&r, "g.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].runtime, OFL_RUNTIME_OFF);
	done(&r);
	o = opts();
	o.llvm_wrapper = true;
	plan(&r, "g.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].runtime, OFL_RUNTIME_DRIVER);
	done(&r);
}

/* LLVM 19's runtime, libomptarget.devicertl.a beside the libomptarget.so
 * the link uses: an input of the plan; none there, an error. */
OFL_TEST(plan_runtime_archive)
{
	struct run r;
	CHECK(fake_llvm(19) == 0);
	CHECK(object("g19", "int main(void) { return 0; }", "int dg;", "amdgcn-amd-amdhsa",
	             "gfx90a", "omp_offloading_entries") == 0);
	CHECK(sh("rm -f root/llvm-19/lib/libomptarget.devicertl.a") == 0);
	plan(&r, "g19.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_ENOTFOUND);
	CHECK(strstr(r.e.msg, "libomptarget.devicertl.a is not beside"));
	done(&r);
	CHECK(sh("printf '!<arch>\\n' >root/llvm-19/lib/libomptarget.devicertl.a") == 0);
	plan(&r, "g19.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.groups[0].runtime, OFL_RUNTIME_ARCHIVE);
	CHECK(strstr(r.p.groups[0].runtime_path, "libomptarget.devicertl.a"));
	done(&r);
}

/* wrap.o: offlink wrap's object (OpenMP, LLVM 20's registration) of the
 * raw image file img. */
static int offlink_wrap(const char *img)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_wrap_opts o = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false};
	if (ofl_file_open(&f, img, &e))
		return -1;
	struct ofl_wrap_image im = {f.data, f.size, 0, f.size, NULL, NULL};
	int fd = open("wrap.o", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = fd < 0 || ofl_wrap_write_fd(fd, &o, &im, 1, &e);
	if (fd >= 0)
		close(fd);
	ofl_file_close(&f);
	return rc;
}

/* An offlink wrap object registers the program's whole entry table: an
 * object whose entries its image defines is registered already (nothing
 * linked, no wrap), and the OpenMP runtime is added (from the newest LLVM:
 * the raw image does not say which made it); an object whose entry the
 * image lacks is an error naming it. */
OFL_TEST(plan_offlink_wrap_object)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(sh("printf 'int ek(void) { return 1; }\\n' >img.c && "
	         "cc -shared -fPIC img.c -o img.so") == 0);
	CHECK(offlink_wrap("img.so") == 0);
	CHECK(object("we",
	             "__attribute__((weak)) int e __asm__(\".offloading.entry.ek\") = 1;\n"
	             "int main(void) { return 0; }",
	             "int ek(void) { return 1; }", cpu, "", "llvm_offload_entries") == 0);
	CHECK(object("wx", "__attribute__((weak)) int x __asm__(\".offloading.entry.ex\") = 1;",
	             "int ex(void) { return 2; }", cpu, "", "llvm_offload_entries") == 0);
	plan(&r, "we.o wrap.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.action, OFL_PLAN_ADD);
	CHECK(unit(&r, "we.o") && unit(&r, "we.o")->taken && !unit(&r, "we.o")->device);
	CHECK(r.p.nactions == 0 && r.p.nwraps == 0);
	CHECK_EQ_U(ofl_link_execute(r.l, &r.p, &r.e), 0);
	CHECK(r.p.res.nlibraries == 2 && !strcmp(r.p.res.libraries[1], "omptarget"));
	CHECK(r.p.res.nlibdirs == 1 && strstr(r.p.res.libdirs[0], "root/llvm-22/lib"));
	done(&r);
	plan(&r, "we.o wx.o wrap.o -o out", opts());
	CHECK_EQ_U(r.rc, OFL_EINVAL);
	CHECK_STR(r.e.path, "wx.o");
	CHECK(strstr(r.e.msg, "not registered by wrap.o") && strstr(r.e.msg, "entry 'ex'"));
	done(&r);
}

/* Device code linked before the link (an allocated .llvm.offloading: LLVM's
 * wrapper object) is a bypass: the link left alone, a warning unless it is
 * meant; a host linker an offlink runs plans nothing. */
OFL_TEST(plan_bypass)
{
	struct run r;
	CHECK(kernel_library() == 0);
	CHECK(sh("cp main.o wrapped.o && objcopy --set-section-flags "
	         ".llvm.offloading=alloc,load,readonly,data wrapped.o") == 0);
	plan(&r, "wrapped.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.action, OFL_PLAN_LINKED_BY_LLVM);
	CHECK(r.p.warning && strstr(r.p.warning, "clang-linker-wrapper"));
	CHECK(r.p.nactions == 0 && r.p.ngroups == 0);
	done(&r);
	struct ofl_link_opts o = opts();
	o.bypass_ok = true;
	plan(&r, "wrapped.o -o out", o);
	CHECK_EQ_U(r.p.action, OFL_PLAN_LINKED_BY_LLVM);
	CHECK(r.p.warning == NULL);
	done(&r);
	o = opts();
	o.chained = true;
	plan(&r, "main.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.action, OFL_PLAN_UNCHANGED);
	done(&r);
}

/* No device code: the host link as it is; a fat binary for output cannot
 * be made of nothing. */
OFL_TEST(plan_no_device_code)
{
	struct run r;
	CHECK(sh("printf 'int main(void) { return 0; }\\n' >h.c && cc -c h.c") == 0);
	plan(&r, "h.o -o out", opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.p.action, OFL_PLAN_UNCHANGED);
	done(&r);
	struct ofl_link_opts o = opts();
	o.emit_fatbin = true;
	plan(&r, "h.o -o out", o);
	CHECK_EQ_U(r.rc, OFL_EINVAL);
	done(&r);
}

/* A device action says why the cache does not keep it: a device tool the
 * plan does not model (here no clang at all: a script), or a side output
 * a hit would not write (-Map, with the real clang 22, which is asked what
 * it runs). */
OFL_TEST(plan_not_cacheable)
{
	struct run r;
	CHECK(kernel_library() == 0);
	struct ofl_cache_opts cache = {0};
	cache.dir = "cache";
	struct ofl_link_opts o = opts();
	o.cache = &cache;
	char *env[] = {"PATH=", NULL};
	o.device_env = env;
	CHECK(sh("printf '#!/bin/sh\\nexit 0\\n' >tool && chmod +x tool") == 0);
	char cwd[4096], tool[4200];
	snprintf(tool, sizeof(tool), "%s/tool", getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	o.device_compiler = tool;
	plan(&r, "main.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK(r.p.actions[0].uncached && strstr(r.p.actions[0].uncached, "not known to offlink"));
	done(&r);
	o.device_compiler = "/usr/lib/llvm-22/bin/clang";
	const char *map = "-Map=out.map";
	o.device_linker_args = &map;
	o.ndevice_linker_args = 1;
	plan(&r, "main.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK(r.p.actions[0].njobs == 1 && strstr(r.p.actions[0].jobs[0].v[0], "ld"));
	CHECK(r.p.actions[0].uncached && strstr(r.p.actions[0].uncached, "report"));
	done(&r);
	/* a linker option offlink models (-Bsymbolic): cached, every file it
	 * reads declared */
	map = "-Bsymbolic";
	plan(&r, "main.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	CHECK(!r.p.actions[0].uncached && r.p.actions[0].nfiles > 10);
	bool crt = false;
	for (size_t i = 0; i < r.p.actions[0].nfiles; i++)
		crt = crt || strstr(r.p.actions[0].files[i].path, "crtbeginS.o");
	CHECK(crt);
	done(&r);
	/* an LTO option that may read or write a file: not cached; one the
	 * driver gives: cached */
	map = "--plugin-opt=sample-profile=prof.txt";
	plan(&r, "main.o -o out", o);
	CHECK(r.p.actions[0].uncached && strstr(r.p.actions[0].uncached, "LTO option"));
	done(&r);
	map = "--plugin-opt=O2";
	plan(&r, "main.o -o out", o);
	CHECK(!r.p.actions[0].uncached);
	done(&r);
	/* a library in none of the folders offlink knows: the linker may find
	 * it elsewhere, unkeyed */
	map = "-lofl_no_such_library";
	plan(&r, "main.o -o out", o);
	CHECK(r.p.actions[0].uncached && strstr(r.p.actions[0].uncached, "none of the folders"));
	done(&r);
}

/* ---- AMDGPU groups as the LLVM that wrote the images makes them ---------- */

static const char hsa[] = "amdgcn-amd-amdhsa";

/* An OpenMP GPU object with host code src and a device variable, for
 * triple and arch (the device runtime left out: none is installed). */
static int amd_object(const char *name, const char *src, const char *triple, const char *arch)
{
	char dev[64];
	snprintf(dev, sizeof(dev), "int d_%s;", name);
	return object(name, src, dev, triple, arch, "llvm_offload_entries");
}

static struct ofl_link_opts gpu_opts(void)
{
	struct ofl_link_opts o = opts();
	o.no_device_runtime = true;
	return o;
}

/* The group of (triple, arch) with images taken, or NULL. */
static const struct ofl_plan_group *group(const struct run *r, const char *triple, const char *arch)
{
	for (size_t i = 0; i < r->p.ngroups; i++)
		if (r->p.groups[i].nimages && !strcmp(r->p.groups[i].triple, triple) &&
		    !strcmp(r->p.groups[i].arch, arch))
			return &r->p.groups[i];
	return NULL;
}

static size_t linked_groups(const struct run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->p.ngroups; i++)
		n += r->p.groups[i].nimages != 0;
	return n;
}

/* Whether the device action of group g has word w. */
static bool group_has_word(const struct run *r, const struct ofl_plan_group *g, const char *w)
{
	return has_word(&r->p.actions[g->first_action + g->nactions - 1], w);
}

/* LLVM 22's rule: a gfx90a member the host link takes is linked into the
 * gfx90a:xnack+ link, a generic one into every link of its triple; neither
 * makes a link of its own. */
OFL_TEST(plan_amdgpu_members_22)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(amd_object("on", "void lk(void); void gk(void); int main(void) { lk(); gk(); }", hsa,
	                 "gfx90a:xnack+") == 0);
	CHECK(amd_object("g1030", "int x1030;", hsa, "gfx1030") == 0);
	CHECK(amd_object("lk", "void lk(void) {}", hsa, "gfx90a") == 0);
	CHECK(amd_object("gk", "void gk(void) {}", hsa, "generic") == 0);
	CHECK(sh("rm -f libk.a && ar rcs libk.a lk.o gk.o") == 0);
	plan(&r, "on.o g1030.o libk.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(linked_groups(&r), 2);
	CHECK(group(&r, hsa, "gfx90a:xnack+") && group(&r, hsa, "gfx90a:xnack+")->nimages == 3);
	CHECK(group(&r, hsa, "gfx1030") && group(&r, hsa, "gfx1030")->nimages == 2);
	done(&r);
}

/* LLVM 22's objects: each in its own link, and copied into the compatible
 * links made before it (LLVM's input order decides). */
OFL_TEST(plan_amdgpu_objects_22)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(amd_object("t1", "int main(void) { return 0; }", hsa, "gfx90a") == 0);
	CHECK(amd_object("on", "int on_host;", hsa, "gfx90a:xnack+") == 0);
	plan(&r, "t1.o on.o -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(group(&r, hsa, "gfx90a")->nimages, 2);
	CHECK_EQ_U(group(&r, hsa, "gfx90a:xnack+")->nimages, 1);
	done(&r);
	plan(&r, "on.o t1.o -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(group(&r, hsa, "gfx90a")->nimages, 1);
	CHECK_EQ_U(group(&r, hsa, "gfx90a:xnack+")->nimages, 2);
	done(&r);
}

/* Main's rule (its amdgpu triples): one ISA spelled amdgpu9.0a (no arch),
 * amdgcn and amdgpu is one link, named after the first; clang 22 gets it
 * as amdgcn with the processor the sub-architecture names; a member
 * joins it. */
OFL_TEST(plan_amdgpu_spellings_main)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(amd_object("a", "void lk(void); int main(void) { lk(); }", "amdgpu9.0a-amd-amdhsa",
	                 "") == 0);
	CHECK(amd_object("b", "int b_host;", hsa, "gfx90a") == 0);
	CHECK(amd_object("c", "int c_host;", "amdgpu-amd-amdhsa", "gfx90a") == 0);
	CHECK(amd_object("lk", "void lk(void) {}", hsa, "gfx90a") == 0);
	CHECK(sh("rm -f libk.a && ar rcs libk.a lk.o") == 0);
	plan(&r, "a.o b.o c.o libk.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(linked_groups(&r), 1);
	const struct ofl_plan_group *g = group(&r, "amdgpu9.0a-amd-amdhsa", "");
	CHECK(g && g->nimages == 4);
	CHECK(group_has_word(&r, g, "--target=amdgcn-amd-amdhsa") &&
	      group_has_word(&r, g, "-mcpu=gfx90a"));
	done(&r);
	/* a clang of main takes the triple as written, the processor from it */
	CHECK(sh("rm -rf root/llvm-22") == 0 && fake_llvm(24) == 0);
	plan(&r, "a.o b.o -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	g = group(&r, "amdgpu9.0a-amd-amdhsa", "");
	CHECK(g && group_has_word(&r, g, "--target=amdgpu9.0a-amd-amdhsa"));
	CHECK(!group_has_word(&r, g, "-mcpu=gfx90a"));
	done(&r);
}

/* Main's "provides for": a plain gfx90a member serves the xnack+ and
 * xnack- links, an amdgpu9 (gfx9-generic) one a gfx900 link; an xnack+
 * member serves no xnack-any link, and two minor sub-architectures never
 * serve each other: such a member the host link takes gets a link of its
 * own (main would leave its code out). */
OFL_TEST(plan_amdgpu_provides_main)
{
	struct run r;
	const char *a90 = "amdgpu9.0a-amd-amdhsa";
	CHECK(fake_llvm(22) == 0);
	CHECK(amd_object("on", "void lk(void); int main(void) { lk(); }", a90, "gfx90a:xnack+") ==
	      0);
	CHECK(amd_object("off", "int off_host;", a90, "gfx90a:xnack-") == 0);
	CHECK(amd_object("lk", "void lk(void) {}", hsa, "gfx90a") == 0);
	CHECK(sh("rm -f libk.a && ar rcs libk.a lk.o") == 0);
	plan(&r, "on.o off.o libk.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(linked_groups(&r), 2);
	CHECK_EQ_U(group(&r, a90, "gfx90a:xnack+")->nimages, 2);
	CHECK_EQ_U(group(&r, a90, "gfx90a:xnack-")->nimages, 2);
	done(&r);
	CHECK(amd_object("g900", "void gen(void); int main(void) { gen(); }", hsa, "gfx900") == 0);
	CHECK(amd_object("gen", "void gen(void) {}", "amdgpu9-amd-amdhsa", "") == 0);
	CHECK(sh("rm -f libgen.a && ar rcs libgen.a gen.o") == 0);
	plan(&r, "g900.o libgen.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(linked_groups(&r), 1);
	CHECK_EQ_U(group(&r, hsa, "gfx900")->nimages, 2);
	done(&r);
	CHECK(amd_object("any", "void lk(void); int main(void) { lk(); }", a90, "gfx90a") == 0);
	CHECK(amd_object("lk", "void lk(void) {}", a90, "gfx90a:xnack+") == 0);
	CHECK(sh("rm -f libk.a && ar rcs libk.a lk.o") == 0);
	plan(&r, "any.o libk.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(group(&r, a90, "gfx90a")->nimages, 1);
	CHECK_EQ_U(group(&r, a90, "gfx90a:xnack+")->nimages, 1);
	done(&r);
	CHECK(amd_object("m900", "void k906(void); int main(void) { k906(); }",
	                 "amdgpu9.00-amd-amdhsa", "") == 0);
	CHECK(amd_object("k906", "void k906(void) {}", "amdgpu9.06-amd-amdhsa", "") == 0);
	CHECK(sh("rm -f lib906.a && ar rcs lib906.a k906.o") == 0);
	plan(&r, "m900.o lib906.a -o out", gpu_opts());
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(linked_groups(&r), 2);
	done(&r);
}

/* Per-triple device arguments under main's rule reach every compatible
 * triple (amdgpu-amd-amdhsa= all AMDGPU links, amdgpu10.3-amd-amdhsa= its
 * family only); a sub-architecture main does not know links nothing. */
OFL_TEST(plan_amdgpu_scoped_args_main)
{
	struct run r;
	CHECK(fake_llvm(22) == 0);
	CHECK(amd_object("a", "int main(void) { return 0; }", "amdgpu9.0a-amd-amdhsa", "") == 0);
	struct ofl_link_opts o = gpu_opts();
	const char *args[] = {"amdgpu-amd-amdhsa=--all-amd", "amdgpu10.3-amd-amdhsa=--rdna2",
	                      "amdgcn-amd-amdhsa=--legacy"};
	o.device_linker_args = args;
	o.ndevice_linker_args = 3;
	plan(&r, "a.o -o out", o);
	CHECK_EQ_U(r.rc, 0);
	const struct ofl_plan_group *g = group(&r, "amdgpu9.0a-amd-amdhsa", "");
	CHECK(g && group_has_word(&r, g, "--all-amd") && group_has_word(&r, g, "--legacy"));
	CHECK(!group_has_word(&r, g, "--rdna2"));
	done(&r);
	CHECK(amd_object("bad", "int main(void) { return 0; }", "amdgpu9.99-amd-amdhsa", "") == 0);
	plan(&r, "bad.o -o out", gpu_opts());
	CHECK_EQ_U(r.rc, OFL_EUNSUPPORTED);
	CHECK(strstr(r.e.msg, "no device linker for target 'amdgpu9.99-amd-amdhsa'"));
	done(&r);
}
