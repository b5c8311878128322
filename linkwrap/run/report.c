/* What a failed device link says: the inputs whose device code went into
 * it (objects and archive members, not the hash-named files the command
 * reads), the tool's first lines with those names put back, and the next
 * step for the common causes.  The whole command and output go to the
 * detail log (-v, --explain). */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "internal.h"
#include "run_priv.h"

/* The next step when CUDA's tools were not found or failed. */
static void cuda_hint(const struct ofl_link *l, struct ofl_buf *b)
{
	/* where the user names another toolkit: clang's option when clang's
	 * driver runs the personality, else offlink's variable */
	const char *name = l->o.llvm_wrapper ? "clang's --cuda-path" : "CUDA_PATH";
	if (*l->cuda)
		ofl_buf_printf(b,
		               "  next: CUDA's tools (ptxas, nvlink) failed or are not in %s/bin, "
		               "the CUDA toolkit of this link (%s); name another with %s\n",
		               l->cuda, l->o.cuda_path ? "given" : "found as clang finds it", name);
	else
		ofl_buf_printf(b,
		               "  next: no CUDA toolkit %s (ptxas on PATH, /usr/local/cuda, "
		               "/usr/local/cuda-8.0, -7.5, -7.0, /usr/lib/cuda): put its bin/ on "
		               "PATH or name it with %s\n",
		               l->o.llvm_wrapper ? "given" : "found", name);
}

enum { SHOWN_LINES = 12, SHOWN_INPUTS = 8 };

/* "main.o, libk.a(kern.o) and 3 more" */
static void name_inputs(const struct ofl_link *l, size_t gi, struct ofl_buf *b)
{
	const struct link_group *g = &l->groups[gi];
	size_t shown = 0, more = 0, last = (size_t)-1;
	for (size_t k = 0; k < g->nall; k++) {
		const struct link_image *im = ofl_group_image(l, gi, k);
		if (!im || im->unit == last)
			continue;
		last = im->unit;
		if (shown == SHOWN_INPUTS) {
			more++;
			continue;
		}
		ofl_buf_printf(b, "%s%s", shown++ ? ", " : "", l->units[im->unit].name);
	}
	if (more)
		ofl_buf_printf(b, " and %zu more", more);
}

/* The unit whose image a hash-named input holds, or NULL. */
static const char *unit_of(const struct ofl_link *l, size_t gi, const char *hex)
{
	const struct link_group *g = &l->groups[gi];
	for (size_t k = 0; k < g->nall; k++) {
		const struct link_image *im = ofl_group_image(l, gi, k);
		char name[17];
		if (!im)
			continue;
		snprintf(name, sizeof(name), "%016llx",
		         (unsigned long long)XXH3_64bits(im->b.image, im->b.image_size));
		if (!memcmp(name, hex, 16))
			return l->units[im->unit].name;
	}
	return NULL;
}

static bool hex16(const char *p)
{
	for (int i = 0; i < 16; i++)
		if (!strchr("0123456789abcdef", p[i]))
			return false;
	return true;
}

/* One line of the tool's, the link's directory left out and each
 * <hash>.o named by its input. */
static void put_line(const struct ofl_link *l, size_t gi, const char *p, size_t n,
                     struct ofl_buf *b)
{
	size_t tl = l->tmpdir ? strlen(l->tmpdir) : 0;
	ofl_buf_append(b, "  ", 2);
	for (size_t i = 0; i < n;) {
		if (tl && n - i > tl && !memcmp(p + i, l->tmpdir, tl) && p[i + tl] == '/') {
			i += tl + 1;
			continue;
		}
		const char *u = n - i >= 18 && hex16(p + i) && !memcmp(p + i + 16, ".o", 2)
		                    ? unit_of(l, gi, p + i)
		                    : NULL;
		/* the archive a CPU link takes its many inputs in */
		if (!u && n - i >= 18 && hex16(p + i) && !memcmp(p + i + 16, ".a", 2))
			u = "the link's device inputs";
		if (u) {
			ofl_buf_append_str(b, u);
			i += 18;
		} else {
			ofl_buf_append(b, p + i++, 1);
		}
	}
	ofl_buf_append(b, "\n", 1);
}

static const char *find(const struct ofl_buf *out, const char *s)
{
	return out->len ? memmem(out->data, out->len, s, strlen(s)) : NULL;
}

/* The next step, for what the tool's words say went wrong. */
static void hint(const struct ofl_link *l, const struct link_group *g, const struct ofl_buf *e,
                 struct ofl_buf *b)
{
	const char *lib = find(e, "unable to find library -l"), *gnu = find(e, "cannot find -l");
	lib = lib ? lib + 25 : gnu ? gnu + 14 : NULL;
	if (lib) {
		int n = (int)strcspn(lib, " \n:'\"");
		ofl_buf_printf(
		    b,
		    "  next: the device link cannot find lib%.*s: CPU device links search "
		    "the host link's -L directories; add the one holding it with -L, or "
		    "give it to device links only with --device-linker=-L<dir>\n",
		    n, lib);
	} else if ((find(e, "__kmpc_") || find(e, "__omp_rtl_")) && ofl_target_gpu(g->triple)) {
		ofl_buf_printf(b, "  next: the OpenMP device runtime is missing from this link%s\n",
		               l->o.no_device_runtime ? " (--nogpulib)" : "");
	} else if (find(e, "Undefined reference to") || find(e, "undefined symbol:")) {
		/* a tool that ran and found the code incomplete: not a tool's fault */
		ofl_buf_printf(b,
		               "  next: device code refers to a symbol that no device code of the "
		               "link defines: add the object or archive defining it to the link "
		               "(archive members are taken for the device symbols they define)\n");
	} else if (find(e, "nvlink") || find(e, "ptxas") || find(e, "CUDA installation")) {
		cuda_hint(l, b);
	} else if (find(e, "unknown argument") || find(e, "unsupported option")) {
		ofl_buf_printf(b, "  next: an argument given with --device-linker or "
		                  "--device-compiler is not one the device clang takes\n");
	}
}

void ofl_devlink_report(struct ofl_link *l, size_t gi, const char *what, const struct ofl_proc *cmd,
                        const char *log)
{
	struct ofl_buf b = OFL_BUF_INIT;
	const struct ofl_buf *e = &cmd->err;
	const char *tool = strrchr(cmd->argv[l->o.nlauncher], '/');
	tool = tool ? tool + 1 : cmd->argv[l->o.nlauncher];
	ofl_buf_printf(&b, "%s: %s %s\n  device code of: ", what, tool,
	               cmd->status < 0 ? "was killed by a signal" : "failed");
	name_inputs(l, gi, &b);
	ofl_buf_append(&b, "\n", 1);
	size_t lines = 0, start = 0;
	for (size_t i = 0; i < e->len; i++) {
		if (e->data[i] != '\n' && i + 1 < e->len)
			continue;
		size_t end = e->data[i] == '\n' ? i : i + 1;
		if (++lines <= SHOWN_LINES)
			put_line(l, gi, (const char *)e->data + start, end - start, &b);
		start = i + 1;
	}
	if (lines > SHOWN_LINES)
		ofl_buf_printf(&b, "  ... %zu more lines (-v or --explain shows them all)\n",
		               lines - SHOWN_LINES);
	hint(l, &l->groups[gi], e, &b);
	if (b.len)
		b.data[--b.len] = '\0'; /* the last newline */
	ofl_link_logf(l, OFL_LOG_FAILURE, "%s", b.data ? (const char *)b.data : what);
	ofl_link_logf(l, OFL_LOG_DETAIL, "%s\n%.*s", log ? log : "", (int)e->len,
	              (const char *)e->data);
	ofl_buf_release(&b);
}
