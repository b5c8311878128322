/* A stub offload runtime: every registration entry point of libomptarget,
 * the CUDA runtime and the HIP runtime, logging its arguments in a form that
 * does not depend on addresses or on the host architecture.  Linking the
 * same host objects once with offlink's wrapper object and once with LLVM's
 * must give the same log.  STUB_ENTRY=32|56 gives the entry layout. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

static const char *sym(const void *p)
{
	Dl_info i;
	if (!p)
		return "null";
	if (dladdr(p, &i) && i.dli_sname && i.dli_saddr == p)
		return i.dli_sname;
	return "?";
}

/* Whether the unwinder gets from here through the wrapper's constructor
 * to __libc_start_main: it needs the constructor's .eh_frame. */
static _Unwind_Reason_Code frame(struct _Unwind_Context *ctx, void *found)
{
	Dl_info i;
	void *ip = (void *)_Unwind_GetIP(ctx);
	if (ip && dladdr(ip, &i) && i.dli_sname && strstr(i.dli_sname, "__libc_start_main"))
		*(int *)found = 1;
	return _URC_NO_REASON;
}

static const char *unwinds(void)
{
	int found = 0;
	_Unwind_Backtrace(frame, &found);
	return found ? "unwinds to __libc_start_main" : "UNWINDING STOPS";
}

static uint32_t fnv(const void *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 16777619u;
	return h;
}

static int stride(void)
{
	const char *s = getenv("STUB_ENTRY");
	return s ? atoi(s) : 56;
}

static uint64_t ld(const char *p, int n)
{
	uint64_t v = 0;
	memcpy(&v, p, (size_t)n); /* little-endian hosts only */
	return v;
}

static const char *str(const char *p)
{
	const char *s;
	memcpy(&s, p, sizeof(s));
	return s ? s : "(null)";
}

static const void *ptr(const char *p)
{
	const void *v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static void entries(const char *b, const char *e)
{
	int st = stride();
	printf("  entries: %ld\n", (long)((e - b) / st));
	for (const char *p = b; p < e; p += st) {
		if (st == 56)
			printf("    v%u kind %u flags 0x%x addr %s name '%s' size %llu data %llu "
			       "aux %s\n",
			       (unsigned)ld(p + 8, 2), (unsigned)ld(p + 10, 2),
			       (unsigned)ld(p + 12, 4), sym(ptr(p + 16)), str(p + 24),
			       (unsigned long long)ld(p + 32, 8), (unsigned long long)ld(p + 40, 8),
			       sym(ptr(p + 48)));
		else
			printf("    addr %s name '%s' size %llu flags 0x%x reserved %u\n",
			       sym(ptr(p)), str(p + 8), (unsigned long long)ld(p + 16, 8),
			       (unsigned)ld(p + 24, 4), (unsigned)ld(p + 28, 4));
	}
}

struct image {
	const char *start, *end, *eb, *ee;
};
struct desc {
	int32_t n;
	struct image *imgs;
	const char *eb, *ee;
};

void __tgt_register_lib(struct desc *d)
{
	printf("__tgt_register_lib: %d images, %s\n", d->n, unwinds());
	for (int i = 0; i < d->n; i++) {
		struct image *im = &d->imgs[i];
		printf("  image %d: %ld bytes fnv %08x, entries %s\n", i,
		       (long)(im->end - im->start), fnv(im->start, (size_t)(im->end - im->start)),
		       im->eb == d->eb && im->ee == d->ee ? "same as descriptor" : "DIFFER");
	}
	entries(d->eb, d->ee);
}

void __tgt_unregister_lib(struct desc *d)
{
	printf("__tgt_unregister_lib: %d images\n", d->n);
}

/* LLVM 14 objects register their requires flags from a constructor. */
void __tgt_register_requires(int64_t flags)
{
	printf("__tgt_register_requires(%lld)\n", (long long)flags);
}

struct image_info {
	int32_t version, number, count;
	const char *arch, *opts;
};

void __tgt_register_image_info(struct image_info *i)
{
	printf("__tgt_register_image_info: v%d image %d of %d arch '%s' opts %s\n", i->version,
	       i->number, i->count, i->arch, i->opts ? "set" : "null");
}

static void *handle[4];

struct fatbin_wrapper {
	int32_t magic, version;
	const void *data, *reserved;
};

static void **fatbin(const char *rt, struct fatbin_wrapper *w)
{
	printf("%sRegisterFatBinary: magic 0x%08x version %d data fnv64 %08x reserved %s, %s\n", rt,
	       (unsigned)w->magic, w->version, fnv(w->data, 64), w->reserved ? "set" : "null",
	       unwinds());
	return handle;
}

static const char *h_ok(void **h)
{
	return h == handle ? "h" : "BAD HANDLE";
}

#define RUNTIME(P, RT)                                                                             \
	void **P##RegisterFatBinary(struct fatbin_wrapper *w)                                      \
	{                                                                                          \
		return fatbin(RT, w);                                                              \
	}                                                                                          \
	void P##UnregisterFatBinary(void **h)                                                      \
	{                                                                                          \
		printf(RT "UnregisterFatBinary(%s)\n", h_ok(h));                                   \
	}                                                                                          \
	int P##RegisterFunction(void **h, const void *addr, const char *name, const char *dev,     \
	                        int limit, void *a, void *b, void *c, void *d, void *e)            \
	{                                                                                          \
		printf(RT "RegisterFunction(%s, %s, '%s', '%s', %d, %s %s %s %s %s), %s\n",        \
		       h_ok(h), sym(addr), name, dev, limit, sym(a), sym(b), sym(c), sym(d),       \
		       sym(e), unwinds());                                                         \
		return 0;                                                                          \
	}                                                                                          \
	void P##RegisterVar(void **h, const void *addr, const char *name, const char *dev,         \
	                    int ext, size_t size, int constant, int global)                        \
	{                                                                                          \
		printf(RT "RegisterVar(%s, %s, '%s', '%s', ext %d, size %zu, const %d, %d)\n",     \
		       h_ok(h), sym(addr), name, dev, ext, size, constant, global);                \
	}                                                                                          \
	void P##RegisterManagedVar(void **h, void **aux, const void *addr, const char *name,       \
	                           size_t size, unsigned align)                                    \
	{                                                                                          \
		printf(RT "RegisterManagedVar(%s, %s, %s, '%s', size %zu, align %u)\n", h_ok(h),   \
		       sym(aux), sym(addr), name, size, align);                                    \
	}

RUNTIME(__cuda, "__cuda")
RUNTIME(__hip, "__hip")

void __cudaRegisterFatBinaryEnd(void **h)
{
	printf("__cudaRegisterFatBinaryEnd(%s)\n", h_ok(h));
}

void __hipRegisterSurface(void **h, const void *addr, const char *name, const char *dev, int type,
                          int ext)
{
	printf("__hipRegisterSurface(%s, %s, '%s', '%s', type %d, ext %d)\n", h_ok(h), sym(addr),
	       name, dev, type, ext);
}

void __hipRegisterTexture(void **h, const void *addr, const char *name, const char *dev, int type,
                          int norm, int ext)
{
	printf("__hipRegisterTexture(%s, %s, '%s', '%s', type %d, norm %d, ext %d)\n", h_ok(h),
	       sym(addr), name, dev, type, norm, ext);
}

/* What the host objects reference but this test never calls. */
#define NEVER(f)                                                                                   \
	void f(void);                                                                              \
	void f(void)                                                                               \
	{                                                                                          \
		abort();                                                                           \
	}
NEVER(cudaLaunchKernel)
NEVER(hipLaunchKernel)
NEVER(__cudaPopCallConfiguration)
NEVER(__hipPopCallConfiguration)
NEVER(__tgt_target_kernel)
NEVER(__tgt_target_mapper)
NEVER(__kmpc_global_thread_num)
NEVER(__kmpc_fork_call)
NEVER(__kmpc_for_static_init_4)
NEVER(__kmpc_for_static_fini)
NEVER(__tgt_target_data_begin_mapper)
NEVER(__tgt_target_data_end_mapper)
NEVER(__tgt_target_data_update_mapper)

int main(void)
{
	printf("main\n");
	return 0;
}
