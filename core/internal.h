/* Private to libofflink: byte decoding, checked arithmetic, allocation. */
#ifndef OFL_INTERNAL_H
#define OFL_INTERNAL_H

#ifndef OFL_BUILDING_CORE
#error "internal.h is private to libofflink"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "offlink/buf.h"
#include "offlink/error.h"

/* Little/big-endian loads and stores; never cast structs over file bytes. */
static inline uint16_t ofl_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t ofl_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}
static inline uint64_t ofl_le64(const uint8_t *p)
{
	return (uint64_t)ofl_le32(p) | ((uint64_t)ofl_le32(p + 4) << 32);
}
static inline uint32_t ofl_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
	       (uint32_t)p[3];
}
static inline void ofl_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void ofl_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ofl_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
/* Checked arithmetic: return true on overflow. */
static inline bool ofl_add_overflow(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}
static inline bool ofl_mul_overflow(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* The section table of an ELF64 little-endian file read from its bytes:
 * the headers (entsize bytes each, at least 64) and the section-name
 * string table, both inside the file; false for a file with none (e_shoff
 * 0).  Callers check the header's class and byte order first. */
struct ofl_elf64_shtab {
	const uint8_t *sh;
	unsigned n, entsize, strndx;
	const char *strs;
	uint64_t strsize;
};
bool ofl_elf64_shtab(const uint8_t *d, size_t size, struct ofl_elf64_shtab *t);

/* AMDGPU processors (target_id.c's table): the target-ID features an
 * AMDGPU processor has (OFL_PROC_*); 0 for a name not in the table. */
enum { OFL_PROC_XNACK = 1, OFL_PROC_SRAMECC = 2 };
unsigned ofl_amdgpu_proc_features(const char *proc);
/* Triple::amdgpu's sub-architecture rule (offload_target.c) on two arch
 * spellings ("" for amdgcn, "amdgpu", "amdgpu9.0a"): the same one, one
 * of them none (amdgcn, amdgpu: not an unknown "amdgpuX"), or one the
 * other's family major. */
bool ofl_amdgpu_sub_compatible(const char *a, size_t alen, const char *b, size_t blen);

/* True when [off, off+len) lies inside a buffer of size total. */
static inline bool ofl_range_ok(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

/* Rounds x up to a multiple of a (a >= 1, any value); false on overflow. */
static inline bool ofl_align_up(uint64_t x, uint64_t a, uint64_t *r)
{
	uint64_t rem = x % a;
	if (rem == 0) {
		*r = x;
		return true;
	}
	return !ofl_add_overflow(x, a - rem, r);
}

/* All library allocations go through these, so tests can inject failures. */
void *ofl_malloc(size_t n);
void *ofl_calloc(size_t n, size_t size);
void *ofl_realloc(void *p, size_t n);
char *ofl_strndup(const char *s, size_t n);
char *ofl_strdup(const char *s);

/* The one growable array: makes room for element n of *v (capacity *cap,
 * elements of elem bytes), doubling.  0, or -1 when out of memory. */
int ofl_grow(void **v, size_t *cap, size_t n, size_t elem);
/* Appends p to an owned-pointer vector; on failure frees p and returns -1.
 * ofl_ptrs_release frees every element and the vector. */
int ofl_ptrs_push(struct ofl_ptrs *o, void *p);
void ofl_ptrs_release(struct ofl_ptrs *o);
#define OFL_GROW(v, cap, n) ofl_grow((void **)&(v), &(cap), (n), sizeof(*(v)))

/* A string of a tail-merged string table (ofl_strtab_layout). */
struct ofl_strtab_ref {
	const char *s;
	size_t len;   /* 0: no place in the table, offset 0 */
	uint64_t off; /* in the table, set by the layout */
};

/* Lays out n strings as LLVM's StringTableBuilder does for ELF and COFF:
 * sorted by their reversed bytes, descending, each NUL-terminated, and one
 * that ends the string before it shares that string's bytes.  The first
 * goes at start (what lies before belongs to the format: ELF's empty
 * string, COFF's size field).  Pointers are sorted, so each ref keeps its
 * offset.  *size: the table's, start included.  0 or OFL_ENOMEM. */
int ofl_strtab_layout(struct ofl_strtab_ref *refs, size_t n, uint64_t start, uint64_t *size);
/* Copies each laid-out string to table + its offset, its NUL left to the
 * zeroed table. */
void ofl_strtab_fill(const struct ofl_strtab_ref *refs, size_t n, uint8_t *table);

/* Writes all n bytes (a write interrupted or short goes on): 0, or -1
 * with errno. */
int ofl_fd_write_all(int fd, const void *p, size_t n);
/* n bytes at off of fd into p, across short reads and EINTR: 0; -1 with
 * errno set (0 when the file ends first) and the bytes read in *got when
 * not NULL. */
int ofl_fd_pread_all(int fd, void *p, size_t n, uint64_t off, size_t *got);

/* Copies len bytes of in_fd from in_off to out_fd, at *out_off (advanced)
 * or, when out_off is NULL, at its file position: in the kernel where that
 * is faster (copy_file_range), else through a fixed buffer, so memory never
 * grows with len.  0; -1 with errno; 1 when the input ends early.  *done:
 * the bytes copied. */
int ofl_fd_copy(int in_fd, uint64_t in_off, int out_fd, uint64_t *out_off, uint64_t len,
                uint64_t *done);

#define OFL_NOMEM(err) ofl_error_set((err), OFL_ENOMEM, NULL, OFL_NO_OFFSET, "out of memory")

#endif
