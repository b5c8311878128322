/* offlink inspect: what is inside objects and raw files holding
 * OffloadBinaries, as a tree, as JSON, or as llvm-objdump --offloading
 * prints it.  Layers through bundles, CCOB and archives come later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "offlink/io.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"
#include "offlink/packager.h"
#include "opts.h"

enum fmt { FMT_TREE, FMT_JSON, FMT_OBJDUMP };

struct insp {
	enum fmt fmt;
	enum ofl_llvm_version llvm;
	int nfiles_done;
};

static const char *const compression_names[] = {"none", "zlib", "zstd"};

/* The "file format" name llvm-objdump prints for the common ELF machines. */
static const char *elf_format_name(const uint8_t *d)
{
	bool is64 = d[4] == 2, le = d[5] == 1;
	unsigned mach = le ? (unsigned)(d[18] | d[19] << 8) : (unsigned)(d[18] << 8 | d[19]);
	switch (mach) {
	case 62:
		return is64 ? "elf64-x86-64" : "elf32-x86-64";
	case 3:
		return "elf32-i386";
	case 183:
		return le ? "elf64-littleaarch64" : "elf64-bigaarch64";
	case 224:
		return "elf64-amdgpu";
	case 190:
		return "elf64-nvptx";
	case 21:
		return le ? "elf64-powerpcle" : "elf64-powerpc";
	default:
		return is64 ? (le ? "elf64-unknown" : "elf64-unknown") : "elf32-unknown";
	}
}

/* ---- llvm-objdump --offloading ------------------------------------------ */

static int objdump_error(const char *path, bool walking, enum ofl_obin_llvm_diag d)
{
	return error("'%s': %s%s", path, walking ? "while extracting offloading files: " : "",
		     ofl_obin_llvm_diag_text(d));
}

static int inspect_objdump(const struct insp *in, const char *path, const uint8_t *d, size_t n)
{
	bool elf = ofl_is_elf(d, n), raw = ofl_obin_is(d, n);
	struct ofl_error err = OFL_ERROR_INIT;
	if (!elf && !raw)
		return error("'%s': The file was not recognized as a valid object file", path);
	if (raw) {
		/* The first binary is parsed on opening the file, so its errors
		 * carry no "while extracting" context. */
		struct ofl_obin first;
		if (ofl_obin_parse(d, n, &first, &err))
			return objdump_error(path, false, ofl_obin_llvm_diag(d, n));
		ofl_obin_release(&first);
	} else {
		printf("\n%s:\tfile format %s\n", path, elf_format_name(d));
	}
	struct ofl_pkg_inputs all;
	enum ofl_obin_llvm_diag diag = OFL_OBIN_INVALID_DATA;
	if (ofl_pkg_collect(d, n, path, 0, &all, &diag, &err)) {
		fflush(stdout);
		return objdump_error(path, true, diag);
	}
	for (size_t i = 0; i < all.n; i++) {
		const struct ofl_obin *b = &all.v[i].bin;
		const char *arch = ofl_obin_get(b, "arch"), *triple = ofl_obin_get(b, "triple");
		printf("\nOFFLOADING IMAGE [%zu]:\n%-16s%s\n%-16s%s\n%-16s%s\n%-16s%s\n", i, "kind",
		       ofl_image_kind_objdump_name(b->image_kind), "arch", arch ? arch : "",
		       "triple", triple ? triple : "", "producer",
		       ofl_offload_kind_name(b->offload_kind, in->llvm));
	}
	ofl_pkg_inputs_release(&all);
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* Bytes that are not printable ASCII become \u00XX (read as Latin-1), so the
 * output is valid JSON whatever the strings hold. */
static void json_str(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Image offsets of a compressed binary count in its inflated form. */
static void json_entry(const struct insp *in, const struct ofl_obin *b, uint64_t base,
		       bool compressed, bool last)
{
	printf("        {\"image_kind\": %u, \"image_kind_name\": ", b->image_kind);
	const char *ik = ofl_image_kind_objdump_name(b->image_kind);
	json_str(ik, strlen(ik));
	const char *ok = ofl_offload_kind_name(b->offload_kind, in->llvm);
	printf(", \"offload_kind\": %u, \"producer\": ", b->offload_kind);
	json_str(ok, strlen(ok));
	printf(", \"flags\": %u, \"image_offset\": %llu, \"image_offset_in\": \"%s\", "
	       "\"image_size\": %llu,\n         \"strings\": [",
	       b->flags,
	       (unsigned long long)(compressed ? b->image_offset : base + b->image_offset),
	       compressed ? "inflated" : "file", (unsigned long long)b->image_size);
	for (size_t j = 0; j < b->nstrings; j++) {
		printf("%s[", j ? ", " : "");
		json_str(b->strings[j].key, strlen(b->strings[j].key));
		printf(", ");
		json_str(b->strings[j].value, (size_t)b->strings[j].value_size);
		printf("]");
	}
	printf("]}%s\n", last ? "" : ",");
}

/* ---- tree ---------------------------------------------------------------- */

static void tree_entry(const struct insp *in, const struct ofl_obin *b, size_t k, uint64_t base,
		       bool compressed)
{
	printf("      image [%zu]: %s, producer %s, %llu bytes", k,
	       ofl_image_kind_objdump_name(b->image_kind),
	       ofl_offload_kind_name(b->offload_kind, in->llvm), (unsigned long long)b->image_size);
	if (compressed)
		printf(" at %#llx of the inflated binary\n", (unsigned long long)b->image_offset);
	else
		printf(" at %#llx\n", (unsigned long long)(base + b->image_offset));
	for (size_t j = 0; j < b->nstrings; j++) {
		printf("        %s = ", b->strings[j].key);
		json_str(b->strings[j].value, (size_t)b->strings[j].value_size);
		putchar('\n');
	}
}

static const char *section_name(const struct ofl_elf_sections *s, size_t idx)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].index == idx)
			return s->v[i].name;
	return "";
}

static void print_binary(const struct insp *in, const struct ofl_found *f,
			 const struct ofl_obin_set *set, bool last)
{
	bool json = in->fmt == FMT_JSON;
	if (json) {
		printf(
		    "      {\"offset\": %llu, \"size\": %llu, \"version\": %u, \"section\": %zu, "
		    "\"compression\": \"%s\", \"inflated_size\": %llu,\n       \"entries\": [\n",
		    (unsigned long long)f->offset, (unsigned long long)set->size, set->version,
		    f->section, compression_names[set->compression],
		    (unsigned long long)set->inflated_size);
	} else {
		printf("    OffloadBinary v%u at %#llx, %llu bytes", set->version,
		       (unsigned long long)f->offset, (unsigned long long)set->size);
		if (set->compression)
			printf(", %s, %llu bytes inflated (ratio %.2f)",
			       compression_names[set->compression],
			       (unsigned long long)set->inflated_size,
			       (double)set->inflated_size / (double)set->size);
		putchar('\n');
	}
	for (size_t k = 0; k < set->nentries; k++) {
		if (json)
			json_entry(in, &set->entries[k], f->offset, set->compression != 0,
				   k + 1 == set->nentries);
		else
			tree_entry(in, &set->entries[k], k, f->offset, set->compression != 0);
	}
	if (json)
		printf("      ]}%s\n", last ? "" : ",");
}

static int inspect_scan(const struct insp *in, const char *path, const uint8_t *d, size_t n)
{
	struct ofl_found_list l = OFL_FOUND_LIST_INIT;
	struct ofl_elf_sections secs = OFL_ELF_SECTIONS_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	bool elf = ofl_is_elf(d, n);
	if (elf &&
	    ofl_elf_offload_sections(d, n, OFL_ELFSEC_BY_TYPE | OFL_ELFSEC_BY_NAME, &secs, &err)) {
		ofl_error_locate(&err, path, 0);
		return error_lib(&err);
	}
	if (ofl_scan_file(d, n, OFL_SCAN_STRICT, &l, &err)) {
		ofl_elf_sections_release(&secs);
		ofl_error_locate(&err, path, 0);
		return error_lib(&err);
	}
	const char *kind = elf ? elf_format_name(d) : ofl_obin_is(d, n) ? "offload binary" : "raw";
	if (in->fmt == FMT_JSON) {
		printf("%s  {\"file\": ", in->nfiles_done ? ",\n" : "");
		json_str(path, strlen(path));
		printf(", \"size\": %zu, \"format\": \"%s\",\n   \"binaries\": [\n", n, kind);
	} else {
		printf("%s: %s, %zu bytes, %zu offload binar%s\n", path, kind, n, l.n,
		       l.n == 1 ? "y" : "ies");
	}
	size_t cur_sec = (size_t)-1;
	int rc = 0;
	for (size_t i = 0; i < l.n && !rc; i++) {
		struct ofl_obin_set set;
		if (ofl_obin_parse_set(d + l.v[i].offset, n - (size_t)l.v[i].offset, &set, &err)) {
			ofl_error_locate(&err, path, l.v[i].offset);
			rc = error_lib(&err);
			break;
		}
		if (in->fmt == FMT_TREE && l.v[i].section != cur_sec) {
			cur_sec = l.v[i].section;
			if (cur_sec)
				printf("  section [%zu] %s\n", cur_sec,
				       section_name(&secs, cur_sec));
			else
				printf("  found by magic scan\n");
		}
		print_binary(in, &l.v[i], &set, i + 1 == l.n);
		ofl_obin_set_release(&set);
	}
	if (in->fmt == FMT_JSON)
		printf("   ]}");
	ofl_found_list_release(&l);
	ofl_elf_sections_release(&secs);
	return rc;
}

static int inspect_one(struct insp *in, const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_file_open(&f, path, &err)) {
		if (in->fmt == FMT_OBJDUMP && err.sys_errno)
			return error("'%s': %s", path, strerror(err.sys_errno));
		return error_lib(&err);
	}
	int rc = in->fmt == FMT_OBJDUMP ? inspect_objdump(in, path, f.data, f.size)
					: inspect_scan(in, path, f.data, f.size);
	in->nfiles_done++;
	ofl_file_close(&f);
	return rc;
}

int cmd_inspect(int argc, char **argv)
{
	const char *format = "tree";
	bool json = false;
	unsigned long long llvm = 22;
	struct strlist files = {0};
	const struct opt table[] = {
	    {"format", OPT_STR, &format, NULL, "tree|json|llvm-objdump",
	     "output format; llvm-objdump prints what llvm-objdump --offloading prints"},
	    {"json", OPT_FLAG, &json, NULL, NULL, "same as --format=json"},
	    {"llvm-version", OPT_UINT, &llvm, NULL, "19|22",
	     "name offload kinds with LLVM 19's or 22's numbering (default 22)"},
	    {"help", OPT_HELP, NULL, NULL, NULL, "show this help"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &files, "offlink inspect [options] FILE...",
			    "show the OffloadBinaries inside objects, executables and raw files");
	if (rc)
		return rc == 2 ? 0 : rc;
	struct insp in = {FMT_TREE, llvm == 19 ? OFL_LLVM_19 : OFL_LLVM_22, 0};
	if (json || !strcmp(format, "json"))
		in.fmt = FMT_JSON;
	else if (!strcmp(format, "llvm-objdump"))
		in.fmt = FMT_OBJDUMP;
	else if (strcmp(format, "tree"))
		rc = error("unknown --format '%s': use tree, json or llvm-objdump", format);
	if (!rc && llvm != 19 && llvm != 22)
		rc = error("--llvm-version must be 19 or 22, not %llu", llvm);
	if (!rc && files.n == 0)
		rc = error("no input files; see 'offlink inspect --help'");
	if (!rc && in.fmt == FMT_JSON)
		printf("{\"files\": [\n");
	for (size_t i = 0; i < files.n && !rc; i++)
		rc = inspect_one(&in, files.v[i]);
	if (in.fmt == FMT_JSON && !rc)
		printf("\n]}\n");
	strlist_release(&files);
	return rc;
}
