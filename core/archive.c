/* Unix ar archives.
 *
 * The reader is a hand parser on purpose: libelf's ar support reads only GNU
 * archives (no BSD "#1/" names, no thin archives) and reports no byte
 * offsets, and we need both.  The writer reproduces llvm-ar's GNU writer in
 * deterministic mode byte for byte, including which ELF symbols go into the
 * "/" index (the rules of LLVM's ELFObjectFile::getSymbolFlags, checked by
 * experiment against llvm-ar 22; see tests/unit/test_archive.c). */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/bitcode.h"
#include "offlink/buf.h"
#include "offlink/archive.h"
#include "offlink/format.h"

#define AR_MAGIC "!<arch>\n"
#define THIN_MAGIC "!<thin>\n"
#define MAGIC_LEN 8
#define HDR_LEN 60
#define NAME_LEN 16
#define SIZE_AT 48
#define SIZE_LEN 10
#define END_AT 58

bool ofl_archive_is(const uint8_t *data, size_t size)
{
	return size >= MAGIC_LEN &&
	       (!memcmp(data, AR_MAGIC, MAGIC_LEN) || ofl_archive_is_thin(data, size));
}

bool ofl_archive_is_thin(const uint8_t *data, size_t size)
{
	return size >= MAGIC_LEN && !memcmp(data, THIN_MAGIC, MAGIC_LEN);
}

void ofl_archive_release(struct ofl_archive *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		free(a->members[i].name);
	free(a->members);
	*a = (struct ofl_archive)OFL_ARCHIVE_INIT;
}

int ofl_archive_open_thin(const char *archive_path, const struct ofl_ar_member *m,
                          struct ofl_file *f, struct ofl_error *err)
{
	const char *slash = strrchr(archive_path, '/');
	size_t dir = m->name[0] != '/' && slash ? (size_t)(slash - archive_path) + 1 : 0;
	struct ofl_buf p = OFL_BUF_INIT;
	/* a failed append would open another file: each one is checked */
	if (ofl_buf_append(&p, archive_path, dir) || ofl_buf_append_str(&p, m->name) ||
	    ofl_buf_append_zeros(&p, 1)) {
		ofl_buf_release(&p);
		return OFL_NOMEM(err);
	}
	int rc = ofl_file_open_regular(f, (const char *)p.data, err);
	ofl_buf_release(&p);
	return rc;
}

/* ---------------------------------------------------------------- reader */

struct ar_parser {
	const uint8_t *data;
	size_t size;
	struct ofl_archive *a;
	size_t cap;
	const uint8_t *longnames; /* "//" table, NULL until seen */
	uint64_t longnames_size;
	struct ofl_error *err;
};

/* Parses a decimal field padded with spaces; false if empty or not numeric. */
static bool parse_decimal(const uint8_t *p, size_t len, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	while (i < len && p[i] >= '0' && p[i] <= '9') {
		if (ofl_mul_overflow(v, 10, &v) || ofl_add_overflow(v, p[i] - '0', &v))
			return false;
		i++;
	}
	if (i == 0)
		return false;
	for (; i < len; i++)
		if (p[i] != ' ')
			return false;
	*out = v;
	return true;
}

/* Length of the name field without its trailing spaces. */
static size_t name_len(const uint8_t *name)
{
	size_t n = NAME_LEN;
	while (n > 0 && name[n - 1] == ' ')
		n--;
	return n;
}

static bool name_is(const uint8_t *name, const char *s)
{
	size_t n = strlen(s);
	return name_len(name) == n && !memcmp(name, s, n);
}

static int add_member(struct ar_parser *p, char *name, const uint8_t *data, uint64_t size,
                      uint64_t data_off, uint64_t hdr_off)
{
	struct ofl_archive *a = p->a;
	if (OFL_GROW(a->members, p->cap, a->nmembers)) {
		free(name);
		return OFL_NOMEM(p->err);
	}
	a->members[a->nmembers++] = (struct ofl_ar_member){name, data, size, data_off, hdr_off};
	return 0;
}

/* Resolves "/<offset>" against the "//" table: entries end at "/\n" (GNU),
 * "\n" or NUL (COFF). */
static int long_name(struct ar_parser *p, const uint8_t *field, uint64_t hdr_off, char **out)
{
	uint64_t off;
	if (!parse_decimal(field + 1, NAME_LEN - 1, &off))
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, hdr_off,
		                     "bad long member name reference '%.16s'", (const char *)field);
	if (!p->longnames)
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, hdr_off,
		                     "long member name reference without a '//' table");
	if (off >= p->longnames_size)
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, hdr_off,
		                     "long member name offset %llu past the '//' table",
		                     (unsigned long long)off);
	const uint8_t *s = p->longnames + off;
	size_t max = (size_t)(p->longnames_size - off), n = 0;
	while (n < max && s[n] != '\n' && s[n] != '\0')
		n++;
	if (n > 0 && s[n - 1] == '/')
		n--;
	*out = ofl_strndup((const char *)s, n);
	return *out ? 0 : OFL_NOMEM(p->err);
}

/* Member name from the 16-byte field: "name/" (GNU) or "name" (BSD). */
static int short_name(struct ar_parser *p, const uint8_t *field, char **out)
{
	size_t n = name_len(field);
	if (n > 0 && field[n - 1] == '/')
		n--;
	*out = ofl_strndup((const char *)field, n);
	return *out ? 0 : OFL_NOMEM(p->err);
}

static bool is_bsd_symdef(const char *name)
{
	return !strcmp(name, "__.SYMDEF") || !strcmp(name, "__.SYMDEF SORTED") ||
	       !strcmp(name, "__.SYMDEF_64") || !strcmp(name, "__.SYMDEF_64 SORTED");
}

/* "#1/<len>": the name is the first len bytes of the data. */
static int bsd_member(struct ar_parser *p, uint64_t off, const uint8_t *data, uint64_t size)
{
	const uint8_t *h = p->data + off;
	uint64_t nlen;
	if (!data)
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off,
		                     "BSD member name in a thin archive");
	if (!parse_decimal(h + 3, NAME_LEN - 3, &nlen) || nlen > size)
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off,
		                     "bad BSD member name length '%.13s'", (const char *)h + 3);
	/* Writers pad the name with NULs; the name ends at the first. */
	char *name = ofl_strndup((const char *)data, (size_t)nlen);
	if (!name)
		return OFL_NOMEM(p->err);
	if (is_bsd_symdef(name)) {
		free(name);
		return 0;
	}
	return add_member(p, name, data + nlen, size - nlen, off + HDR_LEN + nlen, off);
}

/* One member at offset off; *next receives the offset of the next header. */
static int parse_member(struct ar_parser *p, uint64_t off, uint64_t *next)
{
	const uint8_t *h = p->data + off;
	if (!ofl_range_ok(off, HDR_LEN, p->size))
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off, "truncated member header");
	if (h[END_AT] != '`' || h[END_AT + 1] != '\n')
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off,
		                     "bad member header terminator");
	uint64_t size;
	if (!parse_decimal(h + SIZE_AT, SIZE_LEN, &size))
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off, "bad member size '%.10s'",
		                     (const char *)h + SIZE_AT);
	uint64_t data_off = off + HDR_LEN;
	bool is_table = h[0] == '/' && (name_is(h, "/") || name_is(h, "//") ||
	                                name_is(h, "/SYM64/") || name_is(h, "/<ECSYMBOLS>/"));
	/* Thin members' data live in external files; the tables are inline. */
	bool inline_data = !p->a->thin || is_table;
	if (inline_data && !ofl_range_ok(data_off, size, p->size))
		return ofl_error_set(p->err, OFL_EFORMAT, NULL, off,
		                     "member size %llu past the end of the archive",
		                     (unsigned long long)size);
	*next = data_off + (inline_data ? size + (size & 1) : 0);
	const uint8_t *data = inline_data ? p->data + data_off : NULL;

	if (is_table) {
		if (name_is(h, "//")) {
			p->longnames = data;
			p->longnames_size = size;
		}
		return 0;
	}
	if (!memcmp(h, "#1/", 3))
		return bsd_member(p, off, data, size);
	char *name;
	int rc = h[0] == '/' ? long_name(p, h, off, &name) : short_name(p, h, &name);
	if (rc)
		return rc;
	if (is_bsd_symdef(name)) {
		free(name);
		return 0;
	}
	if (!inline_data)
		return add_member(p, name, NULL, size, 0, off);
	return add_member(p, name, data, size, data_off, off);
}

int ofl_archive_parse(const uint8_t *data, size_t size, struct ofl_archive *a,
                      struct ofl_error *err)
{
	*a = (struct ofl_archive)OFL_ARCHIVE_INIT;
	if (!ofl_archive_is(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an archive: bad magic");
	struct ar_parser p = {data, size, a, 0, NULL, 0, err};
	a->thin = ofl_archive_is_thin(data, size);
	uint64_t off = MAGIC_LEN;
	/* off passes size when a final odd member lacks its pad byte. */
	while (off < size) {
		int rc = parse_member(&p, off, &off);
		if (rc) {
			ofl_archive_release(a);
			return rc;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- writer */

struct sym_list {
	struct ofl_buf names; /* NUL-terminated names, all members */
	uint64_t *count;      /* symbols per member */
	uint64_t total;
	bool has_object; /* a member llvm-ar reads as a symbolic file */
};

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Mapping symbols and fake labels that LLVM marks format specific. */
static bool machine_hides(unsigned machine, const char *name)
{
	switch (machine) {
	case EM_AARCH64:
		return starts_with(name, "$d") || starts_with(name, "$x");
	case EM_ARM:
		return !*name || starts_with(name, "$d") || starts_with(name, "$t") ||
		       starts_with(name, "$a");
	case EM_CSKY:
		return starts_with(name, "$d") || starts_with(name, "$t");
	case EM_RISCV:
		return !strcmp(name, ".L0 ") || starts_with(name, "$d") || starts_with(name, "$x");
	default:
		return false;
	}
}

/* llvm-ar indexes the defined, non-local symbols of .symtab, except the null
 * symbol, STT_FILE, STT_SECTION and the machine's mapping symbols.  Weak,
 * unique, common, absolute, hidden and TLS symbols are all indexed. */
static bool is_index_symbol(const GElf_Sym *s, unsigned machine, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);
	return GELF_ST_BIND(s->st_info) != STB_LOCAL && s->st_shndx != SHN_UNDEF &&
	       type != STT_FILE && type != STT_SECTION && !machine_hides(machine, name);
}

static int elf_symbols(Elf *elf, const char *member, struct sym_list *sl, uint64_t *count,
                       struct ofl_error *err)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		goto bad;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	/* Like LLVM, only the first SHT_SYMTAB; .dynsym is never indexed. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			goto bad;
		if (sh.sh_type == SHT_SYMTAB)
			break;
	}
	if (!scn)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t symsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!d || symsz == 0)
		goto bad;
	size_t n = d->d_size / symsz;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			goto bad;
		if (GELF_ST_BIND(s.st_info) == STB_LOCAL || s.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name)
			goto bad;
		if (!is_index_symbol(&s, eh.e_machine, name))
			continue;
		if (ofl_buf_append(&sl->names, name, strlen(name) + 1))
			return OFL_NOMEM(err);
		(*count)++;
	}
	return 0;
bad:
	return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
	                     "member '%s': cannot read ELF symbols: %s", member, elf_errmsg(-1));
}

static bool is_elf(const struct ofl_ar_input *m)
{
	/* LLVM's identify_magic needs 18 bytes to call a file ELF. */
	return m->size >= 18 && !memcmp(m->data, "\177ELF", 4);
}

/* What llvm-ar indexes of bitcode: defined global symbols that are not
 * format-specific (llvm.*), in the order of the irsymtab, which lists them
 * as LLVM's module symbol table does.  Bitcode without a symbol table
 * (before LLVM 5) adds nothing. */
static int bitcode_symbols(const struct ofl_ar_input *m, struct sym_list *sl, uint64_t *count,
                           struct ofl_error *err)
{
	struct ofl_bcsymtab t;
	int rc = ofl_bitcode_symtab(m->data, (size_t)m->size, &t, err);
	if (rc == OFL_ENOTFOUND) {
		ofl_error_clear(err);
		return 0;
	}
	if (rc) {
		ofl_error_prefix(err, "member '%s'", m->name);
		return rc;
	}
	for (size_t i = 0; !rc && i < t.n; i++) {
		const struct ofl_bcsym *s = &t.syms[i];
		if (!(s->flags & OFL_BCSYM_GLOBAL) ||
		    (s->flags & (OFL_BCSYM_UNDEFINED | OFL_BCSYM_FORMAT_SPECIFIC)))
			continue;
		if (ofl_buf_append(&sl->names, s->name, s->len) ||
		    ofl_buf_append(&sl->names, "", 1))
			rc = OFL_NOMEM(err);
		(*count)++;
	}
	ofl_bitcode_symtab_release(&t);
	return rc;
}

static int member_symbols(const struct ofl_ar_input *m, struct sym_list *sl, uint64_t *count,
                          struct ofl_error *err)
{
	*count = 0;
	if (ofl_format_of(m->data, (size_t)m->size) == OFL_FMT_BITCODE) {
		sl->has_object = true;
		return bitcode_symbols(m, sl, count, err);
	}
	if (!is_elf(m))
		return 0;
	sl->has_object = true;
	if (m->size > SIZE_MAX)
		return OFL_NOMEM(err);
	Elf *elf = ofl_elf_memory(m->data, (size_t)m->size, ELF_K_ELF);
	if (!elf)
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "member '%s': cannot read ELF: %s", m->name, elf_errmsg(-1));
	int rc = elf_symbols(elf, m->name, sl, count, err);
	ofl_elf_end(elf, m->data);
	return rc;
}

static int collect_symbols(const struct ofl_ar_input *m, size_t n, struct sym_list *sl,
                           struct ofl_error *err)
{
	sl->count = ofl_calloc(n ? n : 1, sizeof(*sl->count));
	if (!sl->count)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++) {
		int rc = member_symbols(&m[i], sl, &sl->count[i], err);
		if (rc)
			return rc;
		sl->total += sl->count[i];
	}
	/* llvm-ar writes an empty index ("\0\0\0" as names) when an object
	 * member defines nothing, to please old Solaris tools. */
	if (sl->has_object && sl->names.len == 0 && ofl_buf_append(&sl->names, "\0\0\0", 3))
		return OFL_NOMEM(err);
	return 0;
}

/* Long-name table with llvm-ar's dedup: one entry per distinct name, the
 * later members pointing at the first one's entry. */
struct longnames {
	struct ofl_buf table;
	uint64_t *offset; /* per member; UINT64_MAX for short names */
};

static bool needs_long_name(const char *name)
{
	return strlen(name) >= NAME_LEN || strchr(name, '/') != NULL;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * UINT64_C(1099511628211);
	return h;
}

/* Index of the first member with the same long name, found through an
 * open-addressing table of member indices (slot value 0 = empty). */
static size_t first_with_name(const struct ofl_ar_input *m, size_t i, size_t *slots, size_t mask)
{
	size_t k = (size_t)name_hash(m[i].name) & mask;
	for (; slots[k]; k = (k + 1) & mask)
		if (!strcmp(m[slots[k] - 1].name, m[i].name))
			return slots[k] - 1;
	slots[k] = i + 1;
	return i;
}

static int build_longnames(const struct ofl_ar_input *m, size_t n, struct longnames *ln,
                           struct ofl_error *err)
{
	size_t nslots = 16;
	while (nslots < 2 * n && nslots < SIZE_MAX / 4)
		nslots *= 2;
	size_t *slots = ofl_calloc(nslots, sizeof(*slots));
	ln->offset = ofl_malloc((n ? n : 1) * sizeof(*ln->offset));
	if (!slots || !ln->offset) {
		free(slots);
		return OFL_NOMEM(err);
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		ln->offset[i] = UINT64_MAX;
		if (!needs_long_name(m[i].name))
			continue;
		size_t first = first_with_name(m, i, slots, nslots - 1);
		if (first != i) {
			ln->offset[i] = ln->offset[first];
			continue;
		}
		ln->offset[i] = ln->table.len;
		if (ofl_buf_append_str(&ln->table, m[i].name) ||
		    ofl_buf_append(&ln->table, "/\n", 2))
			rc = OFL_NOMEM(err);
	}
	free(slots);
	if (!rc && (ln->table.len & 1) && ofl_buf_append(&ln->table, "\n", 1))
		rc = OFL_NOMEM(err);
	return rc;
}

/* A 60-byte GNU header: name 16, date 12, uid 6, gid 6, mode 8, size 10. */
static void put_header(uint8_t *h, const char *name, const char *mode, uint64_t size)
{
	char tmp[HDR_LEN + 32]; /* room for fields that never overflow in practice */
	snprintf(tmp, sizeof tmp, "%-16s%-12s%-6s%-6s%-8s%-10llu`\n", name, "0", "0", "0", mode,
	         (unsigned long long)size);
	memcpy(h, tmp, HDR_LEN);
}

static int append_header(struct ofl_buf *out, const char *name, const char *mode, uint64_t size)
{
	uint8_t h[HDR_LEN];
	put_header(h, name, mode, size);
	return ofl_buf_append(out, h, HDR_LEN);
}

static uint64_t padded(uint64_t size)
{
	return size + (size & 1);
}

/* Symbol table member size (without header) for offsets of width w. */
static uint64_t symtab_size(const struct sym_list *sl, unsigned w)
{
	return padded(w + sl->total * w + sl->names.len);
}

static void put_be(uint8_t *p, uint64_t v, unsigned w)
{
	for (unsigned i = 0; i < w; i++)
		p[i] = (uint8_t)(v >> (8 * (w - 1 - i)));
}

static int write_symtab(struct ofl_buf *out, const struct ofl_ar_input *m, size_t n,
                        const struct sym_list *sl, unsigned w, uint64_t members_at,
                        struct ofl_error *err)
{
	uint64_t size = symtab_size(sl, w);
	if (append_header(out, w == 8 ? "/SYM64/" : "/", "0", size))
		return OFL_NOMEM(err);
	uint8_t *p = out->data + out->len;
	memset(p, 0, (size_t)size);
	put_be(p, sl->total, w);
	p += w;
	uint64_t pos = members_at;
	for (size_t i = 0; i < n; i++) {
		for (uint64_t k = 0; k < sl->count[i]; k++, p += w)
			put_be(p, pos, w);
		pos += HDR_LEN + padded(m[i].size);
	}
	memcpy(p, sl->names.data, sl->names.len);
	out->len += (size_t)size;
	return 0;
}

static int write_member(struct ofl_buf *out, const struct ofl_ar_input *m, uint64_t longoff)
{
	char name[24];
	if (longoff != UINT64_MAX)
		snprintf(name, sizeof name, "/%llu", (unsigned long long)longoff);
	else
		snprintf(name, sizeof name, "%s/", m->name);
	if (append_header(out, name, "644", m->size) ||
	    ofl_buf_append(out, m->data, (size_t)m->size))
		return OFL_ENOMEM;
	return (m->size & 1) ? ofl_buf_append(out, "\n", 1) : 0;
}

/* Total archive size; false on overflow or a member too large for the
 * 10-digit size field (llvm-ar refuses those too). */
static bool layout(const struct ofl_ar_input *m, size_t n, const struct longnames *ln,
                   uint64_t *members_len, uint64_t *last_hdr)
{
	uint64_t pos = 0;
	*last_hdr = 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i].size > UINT64_C(9999999999))
			return false;
		*last_hdr = pos;
		pos += HDR_LEN + padded(m[i].size);
	}
	*members_len = pos;
	return ln->table.len <= UINT64_C(9999999999);
}

static int write_archive(const struct ofl_ar_input *m, size_t n, const struct sym_list *sl,
                         const struct longnames *ln, uint64_t sym64_at, struct ofl_buf *out,
                         struct ofl_error *err)
{
	uint64_t members_len, last_hdr;
	if (!layout(m, n, ln, &members_len, &last_hdr))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "archive member too large");
	uint64_t strtab = ln->table.len ? HDR_LEN + ln->table.len : 0;
	/* Offsets are computed as for a 32-bit table, whether or not one is
	 * written, exactly as llvm-ar decides. */
	unsigned w = 4;
	uint64_t headers = MAGIC_LEN + HDR_LEN + symtab_size(sl, 4) + strtab;
	if (headers + last_hdr >= sym64_at) {
		w = 8;
		headers = MAGIC_LEN + HDR_LEN + symtab_size(sl, 8) + strtab;
	}
	bool symtab = sl->names.len > 0;
	uint64_t total =
	    MAGIC_LEN + (symtab ? HDR_LEN + symtab_size(sl, w) : 0) + strtab + members_len;
	if (total > SIZE_MAX - out->len || ofl_buf_reserve(out, (size_t)total))
		return OFL_NOMEM(err);
	/* Everything below appends within the reserved space and cannot fail. */
	ofl_buf_append(out, AR_MAGIC, MAGIC_LEN);
	if (symtab)
		write_symtab(out, m, n, sl, w, headers, err);
	if (ln->table.len) {
		uint8_t h[HDR_LEN];
		/* The "//" header leaves date, owner and mode blank. */
		snprintf((char *)h, sizeof h, "%-48s", "//");
		char size[24];
		snprintf(size, sizeof size, "%-10llu`\n", (unsigned long long)ln->table.len);
		memcpy(h + SIZE_AT, size, SIZE_LEN + 2);
		ofl_buf_append(out, h, HDR_LEN);
		ofl_buf_append(out, ln->table.data, ln->table.len);
	}
	for (size_t i = 0; i < n; i++)
		write_member(out, &m[i], ln->offset[i]);
	return 0;
}

int ofl_archive_write_gnu(const struct ofl_ar_input *m, size_t n, struct ofl_buf *out,
                          struct ofl_error *err)
{
	return ofl_archive_write_gnu_sym64(m, n, OFL_AR_SYM64_AT, out, err);
}

int ofl_archive_write_gnu_sym64(const struct ofl_ar_input *m, size_t n, uint64_t sym64_at,
                                struct ofl_buf *out, struct ofl_error *err)
{
	/* An empty name would be written "/", which reads as the index. */
	for (size_t i = 0; i < n; i++)
		if (!m[i].name[0])
			return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "empty archive member name");
	struct sym_list sl = {OFL_BUF_INIT, NULL, 0, false};
	struct longnames ln = {OFL_BUF_INIT, NULL};
	int rc = collect_symbols(m, n, &sl, err);
	if (!rc)
		rc = build_longnames(m, n, &ln, err);
	if (!rc)
		rc = write_archive(m, n, &sl, &ln, sym64_at, out, err);
	ofl_buf_release(&sl.names);
	free(sl.count);
	ofl_buf_release(&ln.table);
	free(ln.offset);
	return rc;
}
