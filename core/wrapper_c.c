/* C source for the wrapper (wrapper_obj.h), for hosts the object writer
 * does not know: the same sections, symbol names, descriptor, constructor
 * priority and registration calls, for any GNU C compiler and ELF target.
 * Image bytes are included by the assembler (.incbin of the input file)
 * into sections opened with their real type, so no bytes are spelled out. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "offlink/wrapper_obj.h"

static bool old_abi(const struct ofl_wrap_opts *o)
{
	return o->abi == OFL_WRAP_LLVM14 || o->abi == OFL_WRAP_AMD;
}

/* Characters that would need escaping twice (C, then the assembler). */
static bool plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/* Where the image's bytes start in paths[i]: their offset in the mapped
 * file when known, else the file is the image. */
static uint64_t file_offset(const struct ofl_wrap_image *img)
{
	const struct ofl_file *f = img->file;
	if (f && img->data >= f->data && img->data <= f->data + f->size)
		return (uint64_t)(img->data - f->data);
	return 0;
}

/* A constructor or destructor slot in the section LLVM uses for it. */
static int slot(struct ofl_buf *b, const char *sec, const char *fn)
{
	return ofl_buf_printf(b,
	                      "static void (*const %s_slot)(void) __attribute__((section(\"%s\"), "
	                      "used)) = %s;\n",
	                      fn, sec, fn);
}

/* The entries section (with its __start_/__stop_) and the C types. */
static int prologue(struct ofl_buf *b, const struct ofl_wrap_opts *o)
{
	const char *sec = ofl_wrap_entries_section(o);
	static const char *const abis[] = {"LLVM 14", "AMD", "LLVM 19", "LLVM 20-22"};
	static const char *const kinds[] = {"OpenMP", "CUDA", "HIP"};
	int rc = ofl_buf_printf(
	    b,
	    "/* offlink wrap: %s registration, %s ABI (docs/abi.md).  Compile with any GNU C\n"
	    " * compiler for an ELF host: cc -c -fPIC this.c */\n"
	    "#include <stddef.h>\n\nint atexit(void (*)(void));\n\n"
	    "extern char __start_%s[] __attribute__((visibility(\"hidden\")));\n"
	    "extern char __stop_%s[] __attribute__((visibility(\"hidden\")));\n"
	    "__asm__(\".section %s,\\\"a\\\"\\n.p2align 3\\n",
	    kinds[o->kind], abis[o->abi], sec, sec, sec);
	if (old_abi(o))
		rc |= ofl_buf_printf(b, ".globl __dummy.omp_offloading.entry\\n"
		                        ".hidden __dummy.omp_offloading.entry\\n"
		                        "__dummy.omp_offloading.entry:\\n");
	else
		rc |= ofl_buf_printf(b, "__dummy.%s:\\n", sec);
	return rc | ofl_buf_printf(b, ".text\");\n\n");
}

/* Image i's symbol: LLVM's name of OpenMP's device image i (one NULL),
 * else one. */
static void label(char *name, size_t size, const char *one, size_t i)
{
	if (one)
		snprintf(name, size, "%s", one);
	else if (i == 0)
		snprintf(name, size, ".omp_offloading.device_image");
	else
		snprintf(name, size, ".omp_offloading.device_image.%zu", i);
}

/* One .incbin per image in section sec, labelled like LLVM's globals:
 * OpenMP's device images (one NULL), else the one image called one; C
 * names them image_<i>. */
static int images_asm(struct ofl_buf *b, const char *sec, const char *type, unsigned align,
                      const struct ofl_wrap_image *imgs, const char *const *paths, size_t n,
                      const char *one)
{
	int rc = ofl_buf_printf(b, "__asm__(\".section %s,\\\"a\\\",%s\\n", sec, type);
	char name[64];
	for (size_t i = 0; i < n && !rc; i++) {
		label(name, sizeof(name), one, i);
		if (!plain(paths[i]))
			return -1;
		rc |= ofl_buf_printf(
		    b, ".p2align %u\\n%s:\\n.incbin \\\"%s\\\",%llu,%llu\\n", align, name, paths[i],
		    (unsigned long long)file_offset(&imgs[i]), (unsigned long long)imgs[i].size);
	}
	rc |= ofl_buf_printf(b, ".text\");\n");
	for (size_t i = 0; i < n && !rc; i++) {
		label(name, sizeof(name), one, i);
		rc |= ofl_buf_printf(b, "extern char image_%zu[] __asm__(\"%s\");\n", i, name);
	}
	return rc;
}

static int omp_source(struct ofl_buf *b, const struct ofl_wrap_opts *o,
                      const struct ofl_wrap_image *imgs, const char *const *paths, size_t n)
{
	bool old = old_abi(o), amd = o->abi == OFL_WRAP_AMD;
	const char *sec = ofl_wrap_entries_section(o);
	const char *isec = old              ? ".rodata"
	                   : o->relocatable ? ".llvm.offloading.relocatable"
	                                    : ".llvm.offloading";
	int rc = images_asm(b, isec, old ? "@progbits" : "@0x6fff4c0b", old ? 4 : 3, imgs, paths, n,
	                    NULL);
	rc |= ofl_buf_printf(b,
	                     "\nstruct __tgt_device_image {\n\tvoid *ImageStart, *ImageEnd, "
	                     "*EntriesBegin, *EntriesEnd;\n};\nstruct __tgt_bin_desc {\n\tint "
	                     "NumDeviceImages;\n\tstruct __tgt_device_image *DeviceImages;\n\tvoid "
	                     "*HostEntriesBegin, *HostEntriesEnd;\n};\n\n"
	                     "static const struct __tgt_device_image images[%zu] "
	                     "__asm__(\".omp_offloading.device_images\") = {\n",
	                     n);
	for (size_t i = 0; i < n; i++)
		rc |= ofl_buf_printf(
		    b, "\t{image_%zu + %llu, image_%zu + %llu, __start_%s, __stop_%s},\n", i,
		    (unsigned long long)imgs[i].start, i, (unsigned long long)imgs[i].end, sec,
		    sec);
	rc |= ofl_buf_printf(b,
	                     "};\nstatic const struct __tgt_bin_desc desc "
	                     "__asm__(\".omp_offloading.descriptor\") = {%zu, (struct "
	                     "__tgt_device_image *)images, __start_%s, __stop_%s};\n\n",
	                     n, sec, sec);
	if (amd) {
		rc |= ofl_buf_printf(b, "struct __tgt_image_info {\n\tint version, image_number, "
		                        "number_images;\n\tconst char *offload_arch, "
		                        "*compile_opts;\n};\nvoid "
		                        "__tgt_register_image_info(struct __tgt_image_info *);\n");
		for (size_t i = 0; i < n; i++) {
			const char *arch = imgs[i].arch ? imgs[i].arch : "";
			if (!plain(arch))
				return -1;
			rc |= ofl_buf_printf(
			    b,
			    "static const char arch_%zu[] __asm__(\"__offload_arch_%zu\") "
			    "__attribute__((section(\".offload_arch_list\"), used)) = \"%s\";\n"
			    "static const struct __tgt_image_info info_%zu "
			    "__asm__(\".offload_image_info_%zu\") = {1, %zu, %zu, arch_%zu, "
			    "NULL};\n",
			    i, i, arch, i, i, i, n, i);
		}
	}
	rc |= ofl_buf_printf(
	    b, "\nvoid __tgt_register_lib(struct __tgt_bin_desc *);\nvoid "
	       "__tgt_unregister_lib(struct __tgt_bin_desc *);\n\n"
	       "static void unreg(void) __asm__(\".omp_offloading.descriptor_unreg\");\n"
	       "__attribute__((section(\".text.startup\"))) static void unreg(void)\n"
	       "{\n\t__tgt_unregister_lib((struct __tgt_bin_desc *)&desc);\n}\n\n"
	       "static void reg(void) __asm__(\".omp_offloading.descriptor_reg\");\n"
	       "__attribute__((section(\".text.startup\"))) static void reg(void)\n{\n");
	for (size_t i = 0; amd && i < n; i++)
		rc |= ofl_buf_printf(
		    b, "\t__tgt_register_image_info((struct __tgt_image_info *)&info_%zu);\n", i);
	rc |= ofl_buf_printf(b, "\t__tgt_register_lib((struct __tgt_bin_desc *)&desc);\n%s}\n",
	                     old ? "" : "\tatexit(unreg);\n");
	rc = rc || slot(b, old ? ".init_array.1" : ".init_array.101", "reg");
	return rc || (old && slot(b, ".fini_array.1", "unreg"));
}

/* The entry walk (docs/abi.md, "Registration sequence") for the layout of o. */
static int cuda_walk(struct ofl_buf *b, const struct ofl_wrap_opts *o, const char *p,
                     const char *rt)
{
	bool v20 = o->abi == OFL_WRAP_LLVM20, hip = o->kind == OFL_WRAP_HIP;
	const char *sec = ofl_wrap_entries_section(o);
	int rc = ofl_buf_printf(
	    b,
	    "%s\n"
	    "static void globals_reg(void **h) __asm__(\".%s.globals_reg\");\n"
	    "__attribute__((section(\".text.startup\"))) static void globals_reg(void **h)\n{\n"
	    "\tfor (struct entry *e = (struct entry *)__start_%s; e < (struct entry *)__stop_%s; "
	    "e++) {\n",
	    v20 ? "struct entry {\n\tunsigned long long reserved;\n\tunsigned short version, "
	          "kind;\n\tunsigned flags;\n\tvoid *addr;\n\tchar *name;\n\tunsigned long long "
	          "size, data;\n\tvoid *aux;\n};"
	        : "struct entry {\n\tvoid *addr;\n\tchar *name;\n\tunsigned long long size;\n\t"
	          "int flags, data;\n};",
	    p, sec, sec);
	if (v20)
		rc |= ofl_buf_printf(b, "\t\tif (e->kind != %d)\n\t\t\tcontinue;\n", hip ? 4 : 2);
	rc |= ofl_buf_printf(b,
	                     "\t\tint ext = (e->flags >> 3) & 1;\n"
	                     "\t\tif (!e->size) {\n\t\t\t%sRegisterFunction(h, e->addr, e->name, "
	                     "e->name, -1, NULL, NULL, NULL, NULL, NULL);\n\t\t\tcontinue;\n\t\t}\n"
	                     "\t\tswitch (e->flags & 7) {\n\t\tcase 0:\n\t\t\t%sRegisterVar(h, "
	                     "e->addr, e->name, e->name, ext, e->size, (e->flags >> 4) & 1, "
	                     "0);\n\t\t\tbreak;\n",
	                     rt, rt);
	if (v20)
		rc |= ofl_buf_printf(b,
		                     "\t\tcase 1:\n\t\t\t%sRegisterManagedVar(h, e->aux, e->addr, "
		                     "e->name, e->size, (unsigned)e->data);\n\t\t\tbreak;\n",
		                     rt);
	if (hip)
		rc |= ofl_buf_printf(b, "\t\tcase 2:\n\t\t\t__hipRegisterSurface(h, e->addr, "
		                        "e->name, e->name, (int)e->data, ext);\n\t\t\tbreak;\n"
		                        "\t\tcase 3:\n\t\t\t__hipRegisterTexture(h, e->addr, "
		                        "e->name, e->name, (int)e->data, (e->flags >> 5) & 1, "
		                        "ext);\n\t\t\tbreak;\n");
	return rc | ofl_buf_printf(b, "\t\t}\n\t}\n}\n");
}

static int cuda_source(struct ofl_buf *b, const struct ofl_wrap_opts *o,
                       const struct ofl_wrap_image *img, const char *path)
{
	bool cuda = o->kind == OFL_WRAP_CUDA;
	const char *p = cuda ? "cuda" : "hip", *rt = cuda ? "__cuda" : "__hip";
	int rc = images_asm(b, cuda ? ".nv_fatbin" : ".hip_fatbin", "@progbits", 4, img, &path, 1,
	                    ".fatbin_image");
	rc |= ofl_buf_printf(
	    b,
	    "\nstatic const struct {\n\tint magic, version;\n\tconst void *data, *reserved;\n} "
	    "wrapper __asm__(\".fatbin_wrapper\") __attribute__((section(\"%s\"), aligned(8))) = "
	    "{0x%x, 1, image_0 + %llu, NULL};\n"
	    "static void **handle __asm__(\".%s.binary_handle\");\n\n"
	    "void **%sRegisterFatBinary(const void *);\nvoid %sRegisterFatBinaryEnd(void **);\n"
	    "void %sUnregisterFatBinary(void **);\n"
	    "int %sRegisterFunction(void **, void *, char *, char *, int, void *, void *, void *, "
	    "void *, void *);\n"
	    "void %sRegisterVar(void **, void *, char *, char *, int, size_t, int, int);\n"
	    "void %sRegisterManagedVar(void **, void *, void *, char *, size_t, unsigned);\n"
	    "void __hipRegisterSurface(void **, void *, char *, char *, int, int);\n"
	    "void __hipRegisterTexture(void **, void *, char *, char *, int, int, int);\n",
	    cuda ? ".nvFatBinSegment" : ".hipFatBinSegment", cuda ? 0x466243b1u : 0x48495046u,
	    (unsigned long long)img->start, p, rt, rt, rt, rt, rt, rt);
	rc = rc || cuda_walk(b, o, p, rt);
	rc |= ofl_buf_printf(
	    b,
	    "\nstatic void unreg(void) __asm__(\".%s.fatbin_unreg\");\n"
	    "__attribute__((section(\".text.startup\"))) static void unreg(void)\n{\n"
	    "\t%sUnregisterFatBinary(handle);\n}\n\n"
	    "static void reg(void) __asm__(\".%s.fatbin_reg\");\n"
	    "__attribute__((section(\".text.startup\"))) static void reg(void)\n"
	    "{\n\thandle = %sRegisterFatBinary(&wrapper);\n\tglobals_reg(handle);\n%s"
	    "\tatexit(unreg);\n}\n",
	    p, rt, p, rt, cuda ? "\t__cudaRegisterFatBinaryEnd(handle);\n" : "");
	return rc || slot(b, ".init_array.101", "reg");
}

/* LLVM 23's SYCL registration: the OffloadBinary whole, in .llvm.offloading
 * (16-aligned as LLVM aligns it), passed with its size at priority 1. */
static int sycl_source(struct ofl_buf *b, const struct ofl_wrap_image *img, const char *path)
{
	unsigned long long size = (unsigned long long)img->size;
	int rc = ofl_buf_printf(
	    b,
	    "/* offlink wrap: SYCL registration of LLVM 23 (docs/abi.md).  Compile with any GNU\n"
	    " * C compiler for an ELF host: cc -c -fPIC this.c */\n"
	    "#include <stddef.h>\n\n");
	rc = rc || images_asm(b, ".llvm.offloading", "@0x6fff4c0b", 4, img, &path, 1,
	                      ".sycl_offloading.binary");
	rc = rc ||
	     ofl_buf_printf(b,
	                    "\nvoid __sycl_register_lib(const void *, size_t);\n"
	                    "void __sycl_unregister_lib(const void *, size_t);\n\n"
	                    "static void reg(void) __asm__(\"sycl.descriptor_reg\");\n"
	                    "__attribute__((section(\".text.startup\"))) static void reg(void)\n"
	                    "{\n\t__sycl_register_lib(image_0, %llu);\n}\n\n"
	                    "static void unreg(void) __asm__(\"sycl.descriptor_unreg\");\n"
	                    "__attribute__((section(\".text.startup\"))) static void "
	                    "unreg(void)\n"
	                    "{\n\t__sycl_unregister_lib(image_0, %llu);\n}\n\n",
	                    size, size);
	return rc || slot(b, ".init_array.1", "reg") || slot(b, ".fini_array.1", "unreg");
}

int ofl_wrap_emit_c(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                    const struct ofl_wrap_image *imgs, const char *const *paths, size_t nimages,
                    struct ofl_error *err)
{
	int rc = ofl_wrap_check(o, nimages, err);
	if (rc)
		return rc;
	if (o->sycl_desc)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "LLVM 22's SYCL registration is written as an object or IR "
		                     "text, not C");
	for (size_t i = 0; i < nimages; i++)
		if (imgs[i].start > imgs[i].end || imgs[i].end > imgs[i].size)
			return ofl_error_set(err, OFL_EINVAL, paths[i], OFL_NO_OFFSET,
			                     "image range outside the file");
	if (o->kind == OFL_WRAP_SYCL)
		rc = sycl_source(out, imgs, paths[0]);
	else if (o->kind == OFL_WRAP_OPENMP)
		rc = prologue(out, o) || omp_source(out, o, imgs, paths, nimages);
	else
		rc = prologue(out, o) || cuda_source(out, o, imgs, paths[0]);
	if (rc)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "cannot write C: out of memory, or a path or arch string "
		                     "with quotes, backslashes or control characters");
	return 0;
}
