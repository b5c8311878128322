/* Bundle entry IDs, target IDs and the StringMap iteration order
 * (docs/formats.md §1.5, §1.6, §2, §3).
 *
 * LLVM 22 parses a -targets string as "<kind>-<a>-<v>-<o>-<e>[-<tid>]" and
 * writes its triple through llvm::Triple::normalize; LLVM 19 splits the
 * string textually.  Both build an llvm::Triple from the four raw fields,
 * and that raw triple (not the normalized one) is what compatibility checks
 * compare, so we keep both.
 */
#include "offlink/target_id.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#include "internal.h"

/* ---- processors ---------------------------------------------------------
 *
 * How these tables were obtained (clang-offload-bundler 19.1.7 and 22.1.8):
 * candidates were every sm_* / gfx* / spirv-like string in libclang-cpp of
 * each version, plus sm_10..sm_130 with and without a/f suffixes, gfx600..
 * gfx1299, gfxN[a-f] and gfxN(-M)-generic spellings, and a few Intel names.
 * Each candidate P was bundled alone as hip-amdgcn-amd-amdhsa--P and the
 * bundle listed: P is known when the listed ID still ends in "--P" (19 turns
 * an unknown P into "--P-", 22 drops it).  19 splits at the last '-', so its
 * gfxN-generic names cannot be probed; they are listed because libclang-cpp
 * 19 contains them.  The AMD/XN/SE columns come from unbundling a
 * hip--P entry with requests hipv4--P, hip--P:xnack+ and hip--P:sramecc+:
 * they say whether P is a processor the amdgcn target-ID parser accepts and
 * which features it allows.
 */
enum {
	K19 = 1, /* clang 19 knows it */
	K22 = 2, /* clang 22 knows it */
	A19 = 4, /* a valid amdgcn target-ID processor for 19 */
	A22 = 8, /* ... for 22 */
	XN = 16, /* allows xnack */
	SE = 32, /* allows sramecc */
	KB = K19 | K22,
	AB = A19 | A22,
};

struct proc_info {
	const char *name;
	unsigned flags;
};

static const struct proc_info procs[] = {
    {"amdgcnspirv", KB},
    {"generic", KB},
    {"bmg_g21", K22},
    {"gfx600", KB | AB},
    {"gfx601", KB | AB},
    {"gfx602", KB | AB},
    {"gfx700", KB | AB},
    {"gfx701", KB | AB},
    {"gfx702", KB | AB},
    {"gfx703", KB | AB},
    {"gfx704", KB | AB},
    {"gfx705", KB | AB},
    {"gfx801", KB | AB | XN},
    {"gfx802", KB | AB},
    {"gfx803", KB | AB},
    {"gfx805", KB | AB},
    {"gfx810", KB | AB | XN},
    {"gfx900", KB | AB | XN},
    {"gfx902", KB | AB | XN},
    {"gfx904", KB | AB | XN},
    {"gfx906", KB | AB | XN | SE},
    {"gfx908", KB | AB | XN | SE},
    {"gfx909", KB | AB | XN},
    {"gfx90a", KB | AB | XN | SE},
    {"gfx90c", KB | AB | XN},
    {"gfx940", K19 | A19 | XN | SE},
    {"gfx941", K19 | A19 | XN | SE},
    {"gfx942", KB | AB | XN | SE},
    {"gfx950", K22 | A22 | XN | SE},
    {"gfx1010", KB | AB | XN},
    {"gfx1011", KB | AB | XN},
    {"gfx1012", KB | AB | XN},
    {"gfx1013", KB | AB | XN},
    {"gfx1030", KB | AB},
    {"gfx1031", KB | AB},
    {"gfx1032", KB | AB},
    {"gfx1033", KB | AB},
    {"gfx1034", KB | AB},
    {"gfx1035", KB | AB},
    {"gfx1036", KB | AB},
    {"gfx1100", KB | AB},
    {"gfx1101", KB | AB},
    {"gfx1102", KB | AB},
    {"gfx1103", KB | AB},
    {"gfx1150", KB | AB},
    {"gfx1151", KB | AB},
    {"gfx1152", KB | AB},
    {"gfx1153", K22 | A22},
    {"gfx1200", KB | AB},
    {"gfx1201", KB | AB},
    {"gfx1250", K22 | A22},
    {"gfx1251", K22 | A22},
    {"gfx9-generic", KB | AB | XN},
    {"gfx9-4-generic", K22 | A22 | XN | SE},
    {"gfx10-1-generic", KB | AB | XN},
    {"gfx10-3-generic", KB | AB},
    {"gfx11-generic", KB | AB},
    {"gfx12-generic", KB | AB},
    {"sm_20", KB},
    {"sm_21", KB},
    {"sm_30", KB},
    {"sm_32", KB},
    {"sm_35", KB},
    {"sm_37", KB},
    {"sm_50", KB},
    {"sm_52", KB},
    {"sm_53", KB},
    {"sm_60", KB},
    {"sm_61", KB},
    {"sm_62", KB},
    {"sm_70", KB},
    {"sm_72", KB},
    {"sm_75", KB},
    {"sm_80", KB},
    {"sm_86", KB},
    {"sm_87", KB},
    {"sm_88", K22},
    {"sm_89", KB},
    {"sm_90", KB},
    {"sm_90a", KB},
    {"sm_100", K22},
    {"sm_100a", K22},
    {"sm_101", K22},
    {"sm_101a", K22},
    {"sm_103", K22},
    {"sm_103a", K22},
    {"sm_110", K22},
    {"sm_110a", K22},
    {"sm_120", K22},
    {"sm_120a", K22},
    {"sm_121", K22},
    {"sm_121a", K22},
};

static bool eq(const char *a, size_t alen, const char *b)
{
	return strlen(b) == alen && memcmp(a, b, alen) == 0;
}

static bool has_prefix(const char *s, size_t len, const char *pre)
{
	size_t n = strlen(pre);
	return len >= n && memcmp(s, pre, n) == 0;
}

static const struct proc_info *find_proc(const char *p, size_t len)
{
	for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
		if (eq(p, len, procs[i].name))
			return &procs[i];
	return NULL;
}

unsigned ofl_amdgpu_proc_features(const char *proc)
{
	const struct proc_info *pi = find_proc(proc, strlen(proc));
	return !pi || !(pi->flags & AB) ? 0
	                                : ((pi->flags & XN) ? OFL_PROC_XNACK : 0) |
	                                      ((pi->flags & SE) ? OFL_PROC_SRAMECC : 0);
}

bool ofl_processor_known(const char *proc, size_t len, enum ofl_llvm_dialect d)
{
	/* 19's table has an unnamed entry, so "" counts as known there
	 * (the trailing-dash bug, docs/formats.md §2.3). */
	if (len == 0)
		return d == OFL_LLVM19;
	const struct proc_info *pi = find_proc(proc, len);
	return pi && (pi->flags & (d == OFL_LLVM19 ? K19 : K22));
}

/* ---- triple components ---------------------------------------------------
 *
 * Name tables after llvm::Triple's parsers: arch names match exactly (plus
 * the arm/thumb and kalimba families), vendors exactly, OS and environment
 * names by prefix, object formats by suffix.  A component's id is its row's
 * id; 0 means unknown.  Aliases share an id, and so do spellings LLVM gives
 * the same arch and sub-arch (x86_64h is plain x86_64 there).
 *
 * Every row was checked against clang-offload-bundler 19.1.7 and 22.1.8: an
 * arch is known when "host-<arch>-unknown-linux-gnu" is accepted; a vendor,
 * OS or environment X is known when an entry "hip-x86_64-X-linux-gnu-sm_70"
 * (X in its own slot) does not serve a request with "zzz" in that slot.  22's
 * normalizer was compared on ~900 spellings (known names in every slot).
 */
struct name_id {
	const char *name;
	int id;
};

/* Ids the code below refers to by name. */
enum {
	ARCH_R600 = 24,
	ARCH_AMDGCN = 25,
	ARCH_SPIRV = 46,
	ARCH_SPIRV64 = 48,
	ARCH_KALIMBA = 49,
	ARCH_WASM32 = 55,
	ARCH_WASM64 = 56,
	ARCH_DXIL = 60,
	ARCH_ARM = 64,
	ARCH_ARMEB = 65,
	ARCH_THUMB = 66,
	ARCH_THUMBEB = 67,
	VENDOR_APPLE = 1,
};

/* Names of the tables below that clang 19 does not know (probed as above). */
static const char *const newer_than_19[] = {
    "aarch64_lfi", "dxilv1.9",    "riscv32be", "riscv64be", "intel", "meta",
    "managarm",    "cheriotrtos", "llvm",      "mlibc",     "mtia",  "rootsignature",
};

static const struct name_id arch_names[] = {
    {"i386", 1},
    {"i486", 1},
    {"i586", 1},
    {"i686", 1},
    {"i786", 1},
    {"i886", 1},
    {"i986", 1},
    {"amd64", 2},
    {"x86_64", 2},
    {"x86_64h", 2},
    {"powerpc", 4},
    {"powerpcspe", 5},
    {"ppc", 4},
    {"ppc32", 4},
    {"powerpcle", 6},
    {"ppcle", 6},
    {"ppc32le", 6},
    {"powerpc64", 7},
    {"ppu", 7},
    {"ppc64", 7},
    {"powerpc64le", 8},
    {"ppc64le", 8},
    {"xscale", 9},
    {"xscaleeb", 10},
    {"aarch64", 11},
    {"arm64", 11},
    {"arm64e", 12},
    {"arm64ec", 13},
    {"aarch64_be", 14},
    {"aarch64_32", 15},
    {"arm64_32", 15},
    {"arc", 16},
    {"avr", 17},
    {"m68k", 18},
    {"msp430", 19},
    {"mips", 20},
    {"mipseb", 20},
    {"mipsallegrex", 20},
    {"mipsisa32r6", 80},
    {"mipsr6", 80},
    {"mipsel", 21},
    {"mipsallegrexel", 21},
    {"mipsisa32r6el", 81},
    {"mipsr6el", 81},
    {"mips64", 22},
    {"mips64eb", 22},
    {"mipsn32", 22},
    {"mipsisa64r6", 82},
    {"mips64r6", 82},
    {"mipsn32r6", 82},
    {"mips64el", 23},
    {"mipsn32el", 23},
    {"mipsisa64r6el", 83},
    {"mips64r6el", 83},
    {"mipsn32r6el", 83},
    {"r600", 24},
    {"amdgcn", 25},
    {"riscv32", 26},
    {"riscv64", 27},
    {"riscv32be", 28},
    {"riscv64be", 29},
    {"hexagon", 30},
    {"s390x", 31},
    {"systemz", 31},
    {"sparc", 32},
    {"sparcel", 33},
    {"sparcv9", 34},
    {"sparc64", 34},
    {"tce", 35},
    {"tcele", 36},
    {"xcore", 37},
    {"nvptx", 38},
    {"nvptx64", 39},
    {"amdil", 40},
    {"amdil64", 41},
    {"hsail", 42},
    {"hsail64", 43},
    {"spir", 44},
    {"spir64", 45},
    {"spirv", 46},
    {"spirv32", 47},
    {"spirv64", 48},
    {"kalimba", 49},
    {"spirv1.5", 46},
    {"spirv1.6", 46},
    {"spirv32v1.0", 47},
    {"spirv32v1.1", 47},
    {"spirv32v1.2", 47},
    {"spirv32v1.3", 47},
    {"spirv32v1.4", 47},
    {"spirv32v1.5", 47},
    {"spirv32v1.6", 47},
    {"spirv64v1.0", 48},
    {"spirv64v1.1", 48},
    {"spirv64v1.2", 48},
    {"spirv64v1.3", 48},
    {"spirv64v1.4", 48},
    {"spirv64v1.5", 48},
    {"spirv64v1.6", 48},
    {"dxilv1.0", 60},
    {"dxilv1.1", 60},
    {"dxilv1.2", 60},
    {"dxilv1.3", 60},
    {"dxilv1.4", 60},
    {"dxilv1.5", 60},
    {"dxilv1.6", 60},
    {"dxilv1.7", 60},
    {"dxilv1.8", 60},
    {"dxilv1.9", 60},
    {"aarch64_lfi", 11},
    {"lanai", 50},
    {"renderscript32", 51},
    {"renderscript64", 52},
    {"shave", 53},
    {"ve", 54},
    {"wasm32", 55},
    {"wasm64", 56},
    {"csky", 57},
    {"loongarch32", 58},
    {"loongarch64", 59},
    {"dxil", 60},
    {"xtensa", 61},
    {"bpf", 62},
    {"bpf_le", 62},
    {"bpfel", 62},
    {"bpf_be", 63},
    {"bpfeb", 63},
    {"arm", 64},
    {"armeb", 65},
    {"thumb", 66},
    {"thumbeb", 67},
};

/* Families matched by prefix: "kalimba<anything>", and arm/thumb with a
 * "v<digit>..." version ("armv7a", "thumbv8m.main"; thumb starts at v4).
 * The rest is kept as the sub-architecture. */
struct arch_family {
	const char *prefix;
	int id;
};

static const struct arch_family arch_families[] = {
    {"kalimba", 49}, {"thumbeb", 67}, {"thumb", 66}, {"armeb", 65}, {"arm", 64},
};

static const struct name_id vendor_names[] = {
    {"apple", 1}, {"pc", 2},  {"scei", 3},   {"sie", 4},   {"fsl", 5},  {"ibm", 6},
    {"img", 7},   {"mti", 8}, {"nvidia", 9}, {"csr", 10},  {"amd", 11}, {"mesa", 12},
    {"suse", 13}, {"oe", 14}, {"intel", 15}, {"meta", 16},
};

enum {
	OS_DARWIN = 1,
	OS_IOS = 5,
	OS_MACOS = 9,
	OS_AMDHSA = 11,
	OS_UEFI = 16,
	OS_TVOS = 25,
	OS_WATCHOS = 26,
	OS_BRIDGEOS = 27,
	OS_AIX = 28,
	OS_ZOS = 29,
	OS_DRIVERKIT = 30,
	OS_XROS = 31,
	OS_WIN32 = 40,
};

/* Matched by prefix, first match wins. */
static const struct name_id os_names[] = {
    {"darwin", OS_DARWIN}, {"dragonfly", 2},    {"freebsd", 3},
    {"fuchsia", 4},        {"ios", 5},          {"kfreebsd", 6},
    {"linux", 7},          {"lv2", 8},          {"macos", 9},
    {"managarm", 10},      {"cheriotrtos", 44}, {"amdhsa", OS_AMDHSA},
    {"amdpal", 12},        {"netbsd", 13},      {"openbsd", 14},
    {"solaris", 15},       {"uefi", OS_UEFI},   {"win32", OS_WIN32},
    {"windows", OS_WIN32}, {"haiku", 18},       {"rtems", 19},
    {"cuda", 20},          {"nvcl", 21},        {"ps4", 22},
    {"ps5", 23},           {"elfiamcu", 24},    {"tvos", 25},
    {"watchos", 26},       {"bridgeos", 27},    {"aix", OS_AIX},
    {"zos", OS_ZOS},       {"driverkit", 30},   {"xros", 31},
    {"visionos", 31},      {"mesa3d", 32},      {"hermit", 33},
    {"hurd", 34},          {"wasip1", 35},      {"wasip2", 36},
    {"wasi", 37},          {"emscripten", 38},  {"shadermodel", 39},
    {"liteos", 41},        {"serenity", 42},    {"vulkan", 43},
};

enum { ENV_GNU = 16, ENV_MSVC = 26, ENV_CYGNUS = 28 };

/* Matched by prefix, first match wins, so longer names come first. */
static const struct name_id env_names[] = {
    {"eabihf", 1},       {"eabi", 2},           {"gnuabin32", 3},      {"gnuabi64", 4},
    {"gnueabihft64", 5}, {"gnueabihf", 6},      {"gnueabit64", 7},     {"gnueabi", 8},
    {"gnuf32", 9},       {"gnuf64", 10},        {"gnusf", 11},         {"gnux32", 12},
    {"gnu_ilp32", 13},   {"code16", 14},        {"gnut64", 15},        {"gnu", ENV_GNU},
    {"android", 17},     {"musleabihf", 18},    {"musleabi", 19},      {"muslx32", 20},
    {"muslf32", 21},     {"muslsf", 22},        {"muslabin32", 23},    {"muslabi64", 24},
    {"musl", 25},        {"msvc", ENV_MSVC},    {"itanium", 27},       {"cygnus", ENV_CYGNUS},
    {"coreclr", 29},     {"simulator", 30},     {"macabi", 31},        {"pixel", 32},
    {"vertex", 33},      {"geometry", 34},      {"hull", 35},          {"domain", 36},
    {"compute", 37},     {"library", 38},       {"raygeneration", 39}, {"intersection", 40},
    {"anyhit", 41},      {"closesthit", 42},    {"miss", 43},          {"callable", 44},
    {"mesh", 45},        {"amplification", 46}, {"rootsignature", 47}, {"opencl", 48},
    {"ohos", 49},        {"pauthtest", 50},     {"llvm", 51},          {"mlibc", 52},
    {"mtia", 53},
};

enum {
	FMT_COFF = 1,
	FMT_ELF = 2,
	FMT_GOFF = 3,
	FMT_MACHO = 4,
	FMT_WASM = 5,
	FMT_XCOFF = 6,
	FMT_DXC = 7,
	FMT_SPIRV = 8
};

/* Matched by suffix. */
static const struct name_id fmt_names[] = {
    {"xcoff", FMT_XCOFF}, {"coff", FMT_COFF}, {"elf", FMT_ELF},         {"goff", FMT_GOFF},
    {"macho", FMT_MACHO}, {"wasm", FMT_WASM}, {"dxcontainer", FMT_DXC}, {"spirv", FMT_SPIRV},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct comp {
	const char *p;
	size_t len;
};

static bool row_in(const struct name_id *r, enum ofl_llvm_dialect d)
{
	if (d != OFL_LLVM19)
		return true;
	for (size_t i = 0; i < sizeof newer_than_19 / sizeof newer_than_19[0]; i++)
		if (!strcmp(r->name, newer_than_19[i]))
			return false;
	return true;
}

static int lookup_exact(const struct name_id *t, size_t n, struct comp c, enum ofl_llvm_dialect d)
{
	for (size_t i = 0; i < n; i++)
		if (row_in(&t[i], d) && eq(c.p, c.len, t[i].name))
			return t[i].id;
	return 0;
}

static int lookup_prefix(const struct name_id *t, size_t n, struct comp c, enum ofl_llvm_dialect d)
{
	for (size_t i = 0; i < n; i++)
		if (row_in(&t[i], d) && has_prefix(c.p, c.len, t[i].name))
			return t[i].id;
	return 0;
}

static bool arm_version_ok(const struct arch_family *f, struct comp rest)
{
	if (f->id == ARCH_KALIMBA)
		return true;
	if (rest.len < 2 || rest.p[0] != 'v' || rest.p[1] < '0' || rest.p[1] > '9')
		return false;
	bool thumb = f->id == ARCH_THUMB || f->id == ARCH_THUMBEB;
	return !(thumb && (rest.p[1] == '2' || rest.p[1] == '3'));
}

/* "v7a" and "v7" are one sub-architecture: drop an "a" profile suffix. */
static struct comp arm_sub(struct comp rest)
{
	if (rest.len >= 3 && rest.p[rest.len - 1] == 'a' && rest.p[rest.len - 2] >= '0' &&
	    rest.p[rest.len - 2] <= '9')
		rest.len--;
	return rest;
}

/* Returns the arch id; *sub (optional) gets what tells sub-architectures
 * apart: the version of a family spelling, or a versioned exact name. */
static int parse_arch(struct comp c, struct comp *sub, enum ofl_llvm_dialect d)
{
	/* "amdgpu<anything>" is Triple::amdgpu, which "amdgcn" also names;
	 * the whole spelling tells its sub-architectures apart */
	if (d >= OFL_LLVM23 && has_prefix(c.p, c.len, "amdgpu")) {
		if (sub)
			*sub = c;
		return ARCH_AMDGCN;
	}
	int id = lookup_exact(arch_names, NELEM(arch_names), c, d);
	if (sub)
		*sub = (id && memchr(c.p, '.', c.len)) ? c : (struct comp){"", 0};
	if (id)
		return id;
	for (size_t i = 0; i < NELEM(arch_families); i++) {
		size_t n = strlen(arch_families[i].prefix);
		if (!has_prefix(c.p, c.len, arch_families[i].prefix))
			continue;
		struct comp rest = {c.p + n, c.len - n};
		if (!arm_version_ok(&arch_families[i], rest))
			return 0;
		if (sub && arch_families[i].id != ARCH_KALIMBA)
			*sub = arm_sub(rest);
		return arch_families[i].id;
	}
	return 0;
}

static int parse_vendor(struct comp c, enum ofl_llvm_dialect d)
{
	return lookup_exact(vendor_names, NELEM(vendor_names), c, d);
}

static int parse_os(struct comp c, enum ofl_llvm_dialect d)
{
	return lookup_prefix(os_names, NELEM(os_names), c, d);
}

static int parse_env(struct comp c, enum ofl_llvm_dialect d)
{
	return lookup_prefix(env_names, NELEM(env_names), c, d);
}

static int parse_fmt(struct comp c)
{
	for (size_t i = 0; i < NELEM(fmt_names); i++) {
		size_t n = strlen(fmt_names[i].name);
		if (c.len >= n && memcmp(c.p + c.len - n, fmt_names[i].name, n) == 0)
			return fmt_names[i].id;
	}
	return 0;
}

bool ofl_triple_arch_known(const char *arch, size_t len, enum ofl_llvm_dialect d)
{
	return parse_arch((struct comp){arch, len}, NULL, d) != 0;
}

/* ---- Triple::normalize ---------------------------------------------------- */

#define MAX_COMPS 16

struct comps {
	struct comp c[MAX_COMPS];
	size_t n;
};

/* Splits at '-' into at most max pieces (the last keeps further dashes). */
static void split_dash(const char *s, size_t len, size_t max, struct comps *out)
{
	out->n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		bool last = out->n + 1 == max;
		if (i == len || (s[i] == '-' && !last)) {
			out->c[out->n++] = (struct comp){s + start, i - start};
			start = i + 1;
		}
	}
}

static bool valid_for(size_t pos, struct comp c, enum ofl_llvm_dialect d)
{
	switch (pos) {
	case 0:
		return parse_arch(c, NULL, d) != 0;
	case 1:
		return parse_vendor(c, OFL_LLVM22) != 0;
	case 2:
		return parse_os(c, OFL_LLVM22) != 0 || has_prefix(c.p, c.len, "cygwin") ||
		       has_prefix(c.p, c.len, "mingw");
	default:
		return parse_env(c, OFL_LLVM22) != 0 || parse_fmt(c) != 0;
	}
}

static void swap_comp(struct comp *a, struct comp *b)
{
	struct comp t = *a;
	*a = *b;
	*b = t;
}

/* Moves component idx to pos (pos < idx): it takes pos's place and the
 * components in the way shift right, skipping those already placed. */
static void move_left(struct comps *v, const bool found[4], size_t pos, size_t idx)
{
	struct comp cur = {"", 0};
	swap_comp(&cur, &v->c[idx]);
	for (size_t i = pos; cur.len != 0; i++) {
		while (i < 4 && found[i])
			i++;
		swap_comp(&cur, &v->c[i]);
	}
}

/* Pushes component idx right to pos by inserting empty components. */
static void move_right(struct comps *v, const bool found[4], size_t pos, size_t idx)
{
	do {
		struct comp cur = {"", 0};
		for (size_t i = idx; i < v->n;) {
			swap_comp(&cur, &v->c[i]);
			if (cur.len == 0)
				break;
			while (++i < 4 && found[i])
				;
		}
		if (cur.len != 0 && v->n < MAX_COMPS)
			v->c[v->n++] = cur;
		while (++idx < 4 && found[idx])
			;
	} while (idx < pos);
}

static void place_components(struct comps *v, bool found[4], enum ofl_llvm_dialect d)
{
	for (size_t pos = 0; pos < 4; pos++) {
		if (found[pos])
			continue;
		for (size_t idx = 0; idx < v->n; idx++) {
			if (idx < 4 && found[idx])
				continue;
			if (!valid_for(pos, v->c[idx], d))
				continue;
			if (pos < idx)
				move_left(v, found, pos, idx);
			else if (pos > idx)
				move_right(v, found, pos, idx);
			found[pos] = true;
			break;
		}
	}
}

static const struct comp unknown_comp = {"unknown", 7};

/* The Windows spellings normalize to "windows" with an environment. */
static void windows_fixup(struct comps *v)
{
	if (v->n < 3)
		return;
	struct comp os = v->c[2];
	bool mingw = has_prefix(os.p, os.len, "mingw");
	bool cygwin = has_prefix(os.p, os.len, "cygwin");
	if (parse_os(os, OFL_LLVM22) != OS_WIN32 && !mingw && !cygwin)
		return;
	while (v->n < 4)
		v->c[v->n++] = unknown_comp;
	v->n = 4;
	bool env_unknown = parse_env(v->c[3], OFL_LLVM22) == 0;
	v->c[2] = (struct comp){"windows", 7};
	if (mingw)
		v->c[3] = (struct comp){"gnu", 3};
	else if (cygwin)
		v->c[3] = (struct comp){"cygnus", 6};
	else if (env_unknown && (parse_fmt(v->c[3]) == 0 || parse_fmt(v->c[3]) == FMT_COFF))
		v->c[3] = (struct comp){"msvc", 4};
}

/* A bare "dxil" arch takes its version from the shader model: 6.N gives
 * dxilv1.N, 6.x the newest (1.9), anything else 1.0.  (LLVM aborts on 6.10
 * and above; we give 1.0.) */
static void dxil_fixup(struct comps *v)
{
	static const char *const names[] = {"dxilv1.0", "dxilv1.1", "dxilv1.2", "dxilv1.3",
	                                    "dxilv1.4", "dxilv1.5", "dxilv1.6", "dxilv1.7",
	                                    "dxilv1.8", "dxilv1.9"};
	if (v->n < 3 || !eq(v->c[0].p, v->c[0].len, "dxil"))
		return;
	if (v->n > 4)
		v->n = 4;
	struct comp os = v->c[2];
	if (!has_prefix(os.p, os.len, "shadermodel"))
		return;
	const char *ver = os.p + 11;
	size_t vlen = os.len - 11;
	int minor = 0;
	if (vlen >= 3 && ver[0] == '6' && ver[1] == '.') {
		if (ver[2] == 'x')
			minor = 9;
		else if (ver[2] >= '0' && ver[2] <= '9' &&
		         (vlen == 3 || ver[3] < '0' || ver[3] > '9'))
			minor = ver[2] - '0';
	}
	v->c[0] = (struct comp){names[minor], 8};
}

/* llvm::Triple::normalize(s, FOUR_IDENT or THREE_IDENT) as release d
 * does: its nident components, into v (pointing into s or at static
 * names). */
static void normalize_comps(const char *s, size_t len, size_t nident, struct comps *v,
                            enum ofl_llvm_dialect d)
{
	split_dash(s, len, MAX_COMPS - 4, v);
	bool found[4] = {false, false, false, false};
	for (size_t i = 0; i < 4 && i < v->n; i++)
		found[i] = valid_for(i, v->c[i], d) &&
		           (i != 2 || parse_os(v->c[2], OFL_LLVM22) != 0) &&
		           (i != 3 || parse_env(v->c[3], OFL_LLVM22) != 0);
	place_components(v, found, d);
	/* "none" as a lone middle component is the OS, not the vendor. */
	if (v->n >= 3 && found[0] && !found[1] && !found[2] && found[3] &&
	    eq(v->c[1].p, v->c[1].len, "none") && v->c[2].len == 0)
		swap_comp(&v->c[1], &v->c[2]);
	for (size_t i = 0; i < v->n; i++)
		if (v->c[i].len == 0)
			v->c[i] = unknown_comp;
	windows_fixup(v);
	dxil_fixup(v);
	while (v->n < nident)
		v->c[v->n++] = unknown_comp;
	v->n = nident;
}

/* normalize_comps joined by '-'.  Caller frees. */
static char *normalize_triple(const char *s, size_t len, size_t nident, enum ofl_llvm_dialect d)
{
	struct comps v;
	normalize_comps(s, len, nident, &v, d);
	size_t total = 0;
	for (size_t i = 0; i < v.n; i++)
		total += v.c[i].len + 1;
	char *r = ofl_malloc(total);
	if (!r)
		return NULL;
	char *w = r;
	for (size_t i = 0; i < v.n; i++) {
		memcpy(w, v.c[i].p, v.c[i].len);
		w += v.c[i].len;
		*w++ = i + 1 < v.n ? '-' : '\0';
	}
	return r;
}

/* ---- triple compatibility ------------------------------------------------- */

struct triple_ids {
	int arch, vendor, os, env, fmt;
	struct comp sub;
};

/* darwin, ios, macos, tvos, watchos, bridgeos, driverkit, xros */
static bool os_darwin(int os)
{
	return os == OS_DARWIN || os == OS_IOS || os == OS_MACOS || os == OS_TVOS ||
	       os == OS_WATCHOS || os == OS_BRIDGEOS || os == OS_DRIVERKIT || os == OS_XROS;
}

/* Each of the first four components parsed in its own slot, as
 * llvm::Triple's constructor parses them. */
static void comps_ids(const struct comps *v, struct triple_ids *t, enum ofl_llvm_dialect d)
{
	struct comp none = {"", 0};
	t->arch = parse_arch(v->c[0], &t->sub, d);
	t->vendor = parse_vendor(v->n > 1 ? v->c[1] : none, d);
	t->os = parse_os(v->n > 2 ? v->c[2] : none, d);
	t->env = parse_env(v->n > 3 ? v->c[3] : none, d);
	t->fmt = parse_fmt(v->n > 3 ? v->c[3] : none);
	if (t->fmt)
		return;
	/* The default object format for the arch and OS. */
	if (os_darwin(t->os))
		t->fmt = FMT_MACHO;
	else if (t->os == OS_WIN32 || t->os == OS_UEFI)
		t->fmt = FMT_COFF;
	else if (t->os == OS_AIX)
		t->fmt = FMT_XCOFF;
	else if (t->os == OS_ZOS)
		t->fmt = FMT_GOFF;
	else if (t->arch == ARCH_WASM32 || t->arch == ARCH_WASM64)
		t->fmt = FMT_WASM;
	else if (t->arch >= ARCH_SPIRV && t->arch <= ARCH_SPIRV64)
		t->fmt = FMT_SPIRV;
	else if (t->arch == ARCH_DXIL)
		t->fmt = FMT_DXC;
	else
		t->fmt = FMT_ELF;
}

/* Parses a triple the way llvm::Triple's constructor does: each of the
 * first four dash-separated fields in its own slot, nothing moved. */
static void parse_triple_ids(const char *s, struct triple_ids *t, enum ofl_llvm_dialect d)
{
	struct comps v;
	split_dash(s, strlen(s), 4, &v);
	comps_ids(&v, t, d);
}

/* A host triple as clang's driver reads --target: normalized first, so
 * that "x86_64-w64-mingw32" and "x86_64-pc-cygwin" are Windows ones. */
static void host_triple_ids(const char *triple, struct triple_ids *t)
{
	struct comps v;
	normalize_comps(triple, strlen(triple), 4, &v, OFL_LLVM22);
	comps_ids(&v, t, OFL_LLVM22);
}

bool ofl_triple_is_coff(const char *triple)
{
	struct triple_ids t;
	host_triple_ids(triple, &t);
	return t.fmt == FMT_COFF;
}

bool ofl_triple_is_msvc(const char *triple)
{
	struct triple_ids t;
	host_triple_ids(triple, &t);
	return t.fmt == FMT_COFF && t.env == ENV_MSVC;
}

bool ofl_triple_is_cygming(const char *triple)
{
	struct triple_ids t;
	host_triple_ids(triple, &t);
	return t.fmt == FMT_COFF && t.os == OS_WIN32 && (t.env == ENV_GNU || t.env == ENV_CYGNUS);
}

static bool arm_thumb_pair(int a, int b)
{
	return (a == ARCH_ARM && b == ARCH_THUMB) || (a == ARCH_THUMB && b == ARCH_ARM) ||
	       (a == ARCH_ARMEB && b == ARCH_THUMBEB) || (a == ARCH_THUMBEB && b == ARCH_ARMEB);
}

bool ofl_triple_compatible(const char *a, const char *b, enum ofl_llvm_dialect d)
{
	struct triple_ids x, y;
	parse_triple_ids(a, &x, d);
	parse_triple_ids(b, &y, d);
	bool same_sub = x.sub.len == y.sub.len && memcmp(x.sub.p, y.sub.p, x.sub.len) == 0;
	/* 22 ignores the vendor of MinGW triples ("w64" vs "pc"). */
	bool ignore_vendor = d != OFL_LLVM19 && x.os == OS_WIN32 && x.env == ENV_GNU;
	bool vendor_ok = x.vendor == y.vendor || ignore_vendor;
	bool arch_ok = x.arch == y.arch || arm_thumb_pair(x.arch, y.arch);
	/* Triple::amdgpu: its sub-architectures by their own rule */
	if (d >= OFL_LLVM23 && x.arch == ARCH_AMDGCN && y.arch == ARCH_AMDGCN)
		return x.vendor == y.vendor && x.os == y.os && x.env == y.env && x.fmt == y.fmt &&
		       ofl_amdgpu_sub_compatible(x.sub.p, x.sub.len, y.sub.p, y.sub.len);
	if (!arch_ok || !same_sub || !vendor_ok || x.os != y.os)
		return false;
	/* Apple triples carry a version in the environment field. */
	if (x.vendor == VENDOR_APPLE)
		return true;
	return x.env == y.env && x.fmt == y.fmt;
}

/* ---- entry IDs ------------------------------------------------------------ */

void ofl_bundle_id_release(struct ofl_bundle_id *id)
{
	if (!id)
		return;
	free(id->kind);
	free(id->triple);
	free(id->target_id);
	free(id->str);
	free(id->raw_triple);
	*id = (struct ofl_bundle_id)OFL_BUNDLE_ID_INIT;
}

bool ofl_bundle_id_is_host(const struct ofl_bundle_id *id)
{
	return id->kind && strcmp(id->kind, "host") == 0;
}

/* Joins a, b, c, d with '-' (llvm::Triple's four-argument constructor). */
static char *join4(const struct comp c[4])
{
	size_t total = 4;
	for (size_t i = 0; i < 4; i++)
		total += c[i].len;
	char *r = ofl_malloc(total);
	if (!r)
		return NULL;
	char *w = r;
	for (size_t i = 0; i < 4; i++) {
		memcpy(w, c[i].p, c[i].len);
		w += c[i].len;
		*w++ = i < 3 ? '-' : '\0';
	}
	return r;
}

static char *concat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *r = ofl_malloc(la + lb + lc + 3);
	if (!r)
		return NULL;
	memcpy(r, a, la);
	r[la] = '-';
	memcpy(r + la + 1, b, lb);
	r[la + 1 + lb] = '-';
	memcpy(r + la + lb + 2, c, lc + 1);
	return r;
}

/* Sets the raw triple from a triple text split into at most 4 fields. */
static int set_raw_triple(struct ofl_bundle_id *out, const char *t, size_t tlen)
{
	struct comps v;
	split_dash(t, tlen, 4, &v);
	struct comp c[4] = {{"", 0}, {"", 0}, {"", 0}, {"", 0}};
	for (size_t i = 0; i < v.n; i++)
		c[i] = v.c[i];
	out->raw_triple = join4(c);
	return out->raw_triple ? 0 : OFL_ENOMEM;
}

static int split19(const char *s, size_t len, struct ofl_bundle_id *out)
{
	const char *colon = memchr(s, ':', len);
	size_t base = colon ? (size_t)(colon - s) : len;
	size_t dash = base;
	while (dash > 0 && s[dash - 1] != '-')
		dash--;
	/* tail = s[dash..base), head = s[0..dash-1); with no dash the tail is
	 * empty and the head is everything (StringRef::rsplit). */
	bool has_dash = dash > 0;
	if (!has_dash)
		dash = base;
	size_t tail_len = base - dash;
	bool known = ofl_processor_known(s + dash, tail_len, OFL_LLVM19);
	size_t head = known && has_dash ? dash - 1 : base;
	const char *k = memchr(s, '-', head);
	size_t klen = k ? (size_t)(k - s) : head;
	size_t toff = k ? klen + 1 : head;
	out->kind = ofl_strndup(s, klen);
	if (!out->kind || set_raw_triple(out, s + toff, head - toff))
		return OFL_ENOMEM;
	out->triple = ofl_strdup(out->raw_triple);
	if (known) {
		/* From the first occurrence of the processor on: features verbatim. */
		const char *at = tail_len ? memmem(s, len, s + dash, tail_len) : s;
		out->target_id = ofl_strndup(at, len - (size_t)(at - s));
	} else {
		out->target_id = ofl_strdup("");
	}
	return out->triple && out->target_id ? 0 : OFL_ENOMEM;
}

/* Returns the number of fields (5 or 6 when well formed). */
static int split22(const char *s, size_t len, enum ofl_llvm_dialect d, struct ofl_bundle_id *out,
                   size_t *nfields)
{
	struct comps v;
	split_dash(s, len, 6, &v);
	*nfields = v.n;
	struct comp f[6] = {{"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}};
	for (size_t i = 0; i < v.n; i++)
		f[i] = v.c[i];
	out->kind = ofl_strndup(f[0].p, f[0].len);
	out->raw_triple = join4(&f[1]);
	if (!out->kind || !out->raw_triple)
		return OFL_ENOMEM;
	const char *colon = memchr(f[5].p, ':', f[5].len);
	size_t plen = colon ? (size_t)(colon - f[5].p) : f[5].len;
	bool keep = plen > 0 && ofl_processor_known(f[5].p, plen, OFL_LLVM22);
	out->target_id = ofl_strndup(f[5].p, keep ? f[5].len : 0);
	/* amdhsa triples are written with three components and an empty env. */
	bool hsa = parse_os(f[3], OFL_LLVM22) == OS_AMDHSA;
	char *n = normalize_triple(out->raw_triple, strlen(out->raw_triple), hsa ? 3 : 4, d);
	if (n && hsa) {
		size_t nl = strlen(n);
		char *t = ofl_realloc(n, nl + 2);
		if (!t) {
			free(n);
			n = NULL;
		} else {
			n = t;
			memcpy(n + nl, "-", 2);
		}
	}
	out->triple = n;
	return out->target_id && out->triple ? 0 : OFL_ENOMEM;
}

static int split_any(const char *s, size_t len, enum ofl_llvm_dialect d, struct ofl_bundle_id *out,
                     size_t *nfields)
{
	*out = (struct ofl_bundle_id)OFL_BUNDLE_ID_INIT;
	*nfields = 6;
	int rc = d == OFL_LLVM19 ? split19(s, len, out) : split22(s, len, d, out, nfields);
	if (rc == 0) {
		out->str = concat3(out->kind, out->triple, out->target_id);
		if (!out->str)
			rc = OFL_ENOMEM;
	}
	if (rc)
		ofl_bundle_id_release(out);
	else
		out->dialect = d;
	return rc;
}

int ofl_bundle_id_split(const char *s, size_t len, enum ofl_llvm_dialect d,
                        struct ofl_bundle_id *out, struct ofl_error *err)
{
	size_t nfields;
	if (split_any(s, len, d, out, &nfields))
		return OFL_NOMEM(err);
	return 0;
}

static bool kind_valid(const char *k)
{
	return !strcmp(k, "host") || !strcmp(k, "openmp") || !strcmp(k, "hip") ||
	       !strcmp(k, "hipv4");
}

int ofl_bundle_id_parse(const char *s, enum ofl_llvm_dialect d, struct ofl_bundle_id *out,
                        struct ofl_error *err)
{
	size_t nfields;
	if (split_any(s, strlen(s), d, out, &nfields))
		return OFL_NOMEM(err);
	if (nfields < 5) {
		ofl_bundle_id_release(out);
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "Targets need to follow the format '<offload kind>-<target "
		                     "triple>', where '<target triple>' follows the format "
		                     "'<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
		                     "features]]'.");
	}
	const char *r = out->raw_triple;
	const char *dash = strchr(r, '-');
	bool kind_ok = kind_valid(out->kind);
	bool triple_ok = ofl_triple_arch_known(r, (size_t)(dash - r), d);
	if (kind_ok && triple_ok)
		return 0;
	int rc =
	    ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "invalid target '%s'%s%s%s%s%s%s",
	                  s, kind_ok ? "" : ", unknown offloading kind '", kind_ok ? "" : out->kind,
	                  kind_ok ? "" : "'", triple_ok ? "" : ", unknown target triple '",
	                  triple_ok ? "" : r, triple_ok ? "" : "'");
	ofl_bundle_id_release(out);
	return rc;
}

/* ---- compatibility -------------------------------------------------------- */

static bool kinds_compatible(const char *e, const char *t, bool hip_openmp)
{
	if (!strcmp(e, t) || (!strcmp(e, "hip") && !strcmp(t, "hipv4")) ||
	    (!strcmp(e, "hipv4") && !strcmp(t, "hip")))
		return true;
	if (!hip_openmp)
		return false;
	return (!strncasecmp(e, "hip", 3) && !strcmp(t, "openmp")) ||
	       (!strcmp(e, "openmp") && !strncasecmp(t, "hip", 3));
}

/* A target ID as clang::parseTargetID sees it against a triple: the
 * processor must be one the target knows (on amdgcn/r600: an AMDGPU
 * processor) and every feature one it allows.  Fills *t on success. */
static bool parse_for_triple(const char *raw_triple, const char *tid, enum ofl_llvm_dialect d,
                             struct ofl_target_id *t)
{
	if (ofl_target_id_parse(tid, t, NULL) != 0)
		return false;
	struct comps v;
	split_dash(raw_triple, strlen(raw_triple), 4, &v);
	int arch = parse_arch(v.c[0], NULL, d);
	bool ok = true;
	if (arch == ARCH_R600 || arch == ARCH_AMDGCN) {
		/* Both dialects' tables agree wherever a processor is kept. */
		const struct proc_info *pi = find_proc(t->processor, strlen(t->processor));
		ok = pi && (pi->flags & AB);
		for (size_t i = 0; ok && i < t->nfeatures; i++)
			ok = (!strcmp(t->features[i].name, "xnack") && (pi->flags & XN)) ||
			     (!strcmp(t->features[i].name, "sramecc") && (pi->flags & SE));
	} else {
		ok = t->nfeatures == 0;
	}
	if (!ok)
		ofl_target_id_release(t);
	return ok;
}

static const struct ofl_target_feature *find_feature(const struct ofl_target_id *t,
                                                     const char *name)
{
	for (size_t i = 0; i < t->nfeatures; i++)
		if (!strcmp(t->features[i].name, name))
			return &t->features[i];
	return NULL;
}

static bool features_fit(const struct ofl_target_id *e, const struct ofl_target_id *t)
{
	if (strcmp(e->processor, t->processor) != 0 || e->nfeatures > t->nfeatures)
		return false;
	for (size_t i = 0; i < e->nfeatures; i++) {
		const struct ofl_target_feature *f = find_feature(t, e->features[i].name);
		if (!f || f->sign != e->features[i].sign)
			return false;
	}
	return true;
}

bool ofl_bundle_id_compatible(const struct ofl_bundle_id *entry, const struct ofl_bundle_id *req,
                              bool hip_openmp)
{
	if (!ofl_triple_compatible(entry->raw_triple, req->raw_triple, entry->dialect))
		return false;
	if (!strcmp(entry->kind, req->kind) && !strcmp(entry->target_id, req->target_id))
		return true;
	if (!kinds_compatible(entry->kind, req->kind, hip_openmp))
		return false;
	struct ofl_target_id e = OFL_TARGET_ID_INIT, t = OFL_TARGET_ID_INIT;
	if (!parse_for_triple(entry->raw_triple, entry->target_id, entry->dialect, &e))
		return false;
	bool ok = parse_for_triple(req->raw_triple, req->target_id, req->dialect, &t) &&
	          features_fit(&e, &t);
	ofl_target_id_release(&e);
	ofl_target_id_release(&t);
	return ok;
}

/* ---- target IDs ----------------------------------------------------------- */

void ofl_target_id_release(struct ofl_target_id *t)
{
	if (!t)
		return;
	free(t->processor);
	for (size_t i = 0; i < t->nfeatures; i++)
		free(t->features[i].name);
	free(t->features);
	*t = (struct ofl_target_id)OFL_TARGET_ID_INIT;
}

static int add_feature(struct ofl_target_id *t, const char *p, size_t len, char sign)
{
	if (OFL_GROW(t->features, t->cap, t->nfeatures))
		return OFL_ENOMEM;
	struct ofl_target_feature *f = t->features;
	f[t->nfeatures].name = ofl_strndup(p, len);
	f[t->nfeatures].sign = sign;
	if (!f[t->nfeatures].name)
		return OFL_ENOMEM;
	t->nfeatures++;
	return 0;
}

static int parse_features(const char *s, struct ofl_target_id *t, struct ofl_error *err)
{
	while (*s) {
		const char *end = strchr(s, ':');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char sign = len ? s[len - 1] : 0;
		if (sign != '+' && sign != '-')
			return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "target feature '%.*s' has no '+' or '-'", (int)len,
			                     s);
		for (size_t i = 0; i < t->nfeatures; i++)
			if (eq(s, len - 1, t->features[i].name))
				return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
				                     "target feature '%.*s' is named twice",
				                     (int)(len - 1), s);
		if (add_feature(t, s, len - 1, sign))
			return OFL_NOMEM(err);
		s += len + (end ? 1 : 0);
	}
	return 0;
}

int ofl_target_id_parse(const char *s, struct ofl_target_id *out, struct ofl_error *err)
{
	*out = (struct ofl_target_id)OFL_TARGET_ID_INIT;
	const char *colon = strchr(s, ':');
	size_t plen = colon ? (size_t)(colon - s) : strlen(s);
	if (plen == 0)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "target id '%s' has no processor", s);
	out->processor = ofl_strndup(s, plen);
	if (!out->processor)
		return OFL_NOMEM(err);
	int rc = colon ? parse_features(colon + 1, out, err) : 0;
	if (rc)
		ofl_target_id_release(out);
	return rc;
}

static int cmp_feature(const void *a, const void *b)
{
	const struct ofl_target_feature *x = a, *y = b;
	return strcmp(x->name, y->name);
}

char *ofl_target_id_canonical(const struct ofl_target_id *t)
{
	size_t total = strlen(t->processor) + 1;
	for (size_t i = 0; i < t->nfeatures; i++)
		total += strlen(t->features[i].name) + 2;
	struct ofl_target_feature *sorted = NULL;
	if (t->nfeatures) {
		sorted = ofl_malloc(t->nfeatures * sizeof *sorted);
		if (!sorted)
			return NULL;
		memcpy(sorted, t->features, t->nfeatures * sizeof *sorted);
		qsort(sorted, t->nfeatures, sizeof *sorted, cmp_feature);
	}
	char *r = ofl_malloc(total);
	if (r) {
		char *w = stpcpy(r, t->processor);
		for (size_t i = 0; i < t->nfeatures; i++) {
			*w++ = ':';
			w = stpcpy(w, sorted[i].name);
			*w++ = sorted[i].sign;
		}
		*w = '\0';
	}
	free(sorted);
	return r;
}

/* One side sets a feature the other leaves as Any. */
static bool any_vs_set(const struct ofl_target_id *a, const struct ofl_target_id *b)
{
	for (size_t i = 0; i < a->nfeatures; i++)
		if (!find_feature(b, a->features[i].name))
			return true;
	return false;
}

bool ofl_target_id_conflict(const struct ofl_target_id *a, const struct ofl_target_id *b)
{
	if (strcmp(a->processor, b->processor) != 0)
		return false;
	return any_vs_set(a, b) || any_vs_set(b, a);
}

static int cmp_str_idx(const void *a, const void *b, void *ctx)
{
	const char *const *ids = ctx;
	return strcmp(ids[*(const size_t *)a], ids[*(const size_t *)b]);
}

/* first/second: indices; the IDs are visited in std::set order. */
static int conflict_scan(const char *const *ids, const size_t *idx, size_t n,
                         struct ofl_target_id *parsed, size_t *first, size_t *second)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && !strcmp(ids[idx[i]], ids[idx[i - 1]]))
			continue;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(parsed[idx[j]].processor, parsed[idx[i]].processor) != 0)
				continue;
			/* j is the first ID of this processor. */
			if (any_vs_set(&parsed[idx[i]], &parsed[idx[j]])) {
				*first = idx[j];
				*second = idx[i];
				return 1;
			}
			break;
		}
	}
	return 0;
}

int ofl_target_id_find_conflict(const char *const *ids, size_t n, size_t *first, size_t *second,
                                struct ofl_error *err)
{
	size_t *idx = ofl_calloc(n ? n : 1, sizeof *idx);
	struct ofl_target_id *parsed = ofl_calloc(n ? n : 1, sizeof *parsed);
	int rc = idx && parsed ? 0 : OFL_NOMEM(err);
	size_t done = 0;
	for (; rc == 0 && done < n; done++) {
		idx[done] = done;
		rc = ofl_target_id_parse(ids[done], &parsed[done], err);
	}
	if (rc == 0) {
		qsort_r(idx, n, sizeof *idx, cmp_str_idx, (void *)ids);
		rc = conflict_scan(ids, idx, n, parsed, first, second);
	}
	for (size_t i = 0; parsed && i < done; i++)
		ofl_target_id_release(&parsed[i]);
	free(parsed);
	free(idx);
	return rc;
}

/* ---- llvm::StringMap iteration order (docs/formats.md §1.6) -------------- */

struct smap {
	size_t nb;      /* buckets, a power of two */
	size_t *slot;   /* key index + 1, 0 = empty */
	uint32_t *hash; /* full hash of the occupant */
};

static size_t probe_free(const struct smap *m, uint32_t h)
{
	size_t b = h & (m->nb - 1);
	for (size_t step = 1; m->slot[b]; step++)
		b = (b + step) & (m->nb - 1);
	return b;
}

static int smap_grow(struct smap *m)
{
	struct smap g = {m->nb * 2, NULL, NULL};
	g.slot = ofl_calloc(g.nb, sizeof *g.slot);
	g.hash = ofl_calloc(g.nb, sizeof *g.hash);
	if (!g.slot || !g.hash) {
		free(g.slot);
		free(g.hash);
		return OFL_ENOMEM;
	}
	for (size_t b = 0; b < m->nb; b++) {
		if (!m->slot[b])
			continue;
		size_t nbk = probe_free(&g, m->hash[b]);
		g.slot[nbk] = m->slot[b];
		g.hash[nbk] = m->hash[b];
	}
	free(m->slot);
	free(m->hash);
	*m = g;
	return 0;
}

/* Finds key i's bucket, or the free bucket where it would go. */
static size_t smap_lookup(const struct smap *m, const char *const *keys, const size_t *lens,
                          size_t i, uint32_t h)
{
	size_t b = h & (m->nb - 1);
	for (size_t step = 1; m->slot[b]; step++) {
		size_t j = m->slot[b] - 1;
		if (m->hash[b] == h && lens[j] == lens[i] && !memcmp(keys[j], keys[i], lens[i]))
			return b;
		b = (b + step) & (m->nb - 1);
	}
	return b;
}

int ofl_stringmap_order(const char *const *keys, const size_t *lens, size_t n, size_t *order)
{
	struct smap m = {16, ofl_calloc(16, sizeof(size_t)), ofl_calloc(16, sizeof(uint32_t))};
	int rc = m.slot && m.hash ? 0 : OFL_ENOMEM;
	size_t items = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint32_t h = (uint32_t)XXH3_64bits(keys[i], lens[i]);
		size_t b = smap_lookup(&m, keys, lens, i, h);
		bool dup = m.slot[b] != 0;
		/* A repeated key keeps its bucket; the later value replaces it. */
		m.slot[b] = i + 1;
		m.hash[b] = h;
		if (!dup && ++items * 4 > m.nb * 3)
			rc = smap_grow(&m);
	}
	if (rc == 0) {
		size_t w = 0;
		for (size_t b = 0; b < m.nb; b++)
			if (m.slot[b])
				order[w++] = m.slot[b] - 1;
		while (w < n)
			order[w++] = SIZE_MAX;
	}
	free(m.slot);
	free(m.hash);
	return rc;
}
