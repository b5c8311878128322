/* A stand-in for libsycl's two entry points as LLVM 22 registers SYCL
 * device code (#147508): logs the descriptor it is handed (every image's
 * header, strings, bytes and kernel entries) and the SYCL entries in the
 * program's llvm_offload_entries, so that a program offlink linked can be
 * compared with the one LLVM 22's clang-linker-wrapper linked. */
#include <stdint.h>
#include <stdio.h>

struct entry { /* LLVM 20-22's offload entry, 56 bytes */
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	void *addr;
	const char *name;
	uint64_t size, data;
	void *aux;
};

struct image { /* __sycl.tgt_device_image, version 3 */
	uint16_t version;
	uint8_t kind, format;
	const char *triple, *compile, *link;
	const unsigned char *start, *end;
	const struct entry *entries, *entries_end;
	const char *props, *props_end;
};

struct desc { /* __sycl.tgt_bin_desc, version 1 */
	uint16_t version, nimages;
	const struct image *images;
	const struct entry *host, *host_end;
};

extern const struct entry __start_llvm_offload_entries[] __attribute__((weak));
extern const struct entry __stop_llvm_offload_entries[] __attribute__((weak));

static const struct desc *registered;

static void entry(const char *what, const struct entry *e)
{
	printf("  %s v%u kind %u flags %u addr %d name %s size %llu data %llu aux %d\n", what,
	       e->version, e->kind, e->flags, e->addr != 0, e->name, (unsigned long long)e->size,
	       (unsigned long long)e->data, e->aux != 0);
}

void __sycl_register_lib(const struct desc *d)
{
	printf("register v%u images %u host entries %d\n", d->version, d->nimages,
	       d->host != 0 || d->host_end != 0);
	for (unsigned i = 0; i < d->nimages; i++) {
		const struct image *im = &d->images[i];
		uint64_t h = 1469598103934665603ull; /* FNV-1a of the bytes */
		for (const unsigned char *p = im->start; p < im->end; p++)
			h = (h ^ *p) * 1099511628211ull;
		printf(" image %u v%u kind %u format %u triple '%s' compile '%s' link '%s' "
		       "size %zu fnv %016llx props %d\n",
		       i, im->version, im->kind, im->format, im->triple, im->compile, im->link,
		       (size_t)(im->end - im->start), (unsigned long long)h,
		       im->props != 0 || im->props_end != 0);
		for (const struct entry *e = im->entries; e < im->entries_end; e++)
			entry("kernel", e);
	}
	for (const struct entry *e = __start_llvm_offload_entries;
	     e && e < __stop_llvm_offload_entries; e++)
		if (e->kind == 8)
			entry("section", e);
	registered = d;
}

void __sycl_unregister_lib(const struct desc *d)
{
	printf("unregister same %d\n", d == registered);
	fflush(stdout);
}
