/* LLVM IR text for the wrapper module (wrapper_obj.h): the same globals,
 * sections and constructors clang's wrapper builds (docs/abi.md, "Registration sequence"),
 * in opaque-pointer IR that LLVM 15 and later read.  The LLVM 14 flavours are
 * written in the same dialect (14 itself used typed pointers). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "offlink/wrapper_obj.h"

static bool old_abi(const struct ofl_wrap_opts *o)
{
	return o->abi == OFL_WRAP_LLVM14 || o->abi == OFL_WRAP_AMD;
}

/* c"..." with LLVM's escaping: printable bytes as is, except " as \22 and
 * the backslash doubled. */
static int put_cstring(struct ofl_buf *b, const uint8_t *p, uint64_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	if (ofl_buf_reserve(b, n + 3) || ofl_buf_append(b, "c\"", 2))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		int rc;
		if (c == '\\')
			rc = ofl_buf_append(b, "\\\\", 2);
		else if (c >= 0x20 && c < 0x7f && c != '"')
			rc = ofl_buf_append(b, &c, 1);
		else
			rc = ofl_buf_append(b, (char[3]){'\\', hex[c >> 4], hex[c & 15]}, 3);
		if (rc)
			return -1;
	}
	return ofl_buf_append(b, "\"", 1);
}

static int header(struct ofl_buf *b, const struct ofl_wrap_opts *o, const char *triple)
{
	const char *mod = old_abi(o) ? "offload.wrapper.object" : "offload.wrapper.module";
	const char *entry = o->abi == OFL_WRAP_LLVM20
	                        ? "{ i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }"
	                        : "{ ptr, ptr, i64, i32, i32 }";
	const char *sec = ofl_wrap_entries_section(o);
	int rc = ofl_buf_printf(b,
	                        "; ModuleID = '%s'\nsource_filename = \"%s\"\n"
	                        "target triple = \"%s\"\n\n"
	                        "%%struct.__tgt_offload_entry = type %s\n",
	                        mod, mod, triple, entry);
	if (o->kind != OFL_WRAP_OPENMP)
		rc |= ofl_buf_printf(b, "%%fatbin_wrapper = type { i32, i32, ptr, ptr }\n");
	if (o->kind == OFL_WRAP_OPENMP)
		rc |= ofl_buf_printf(b, "%%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n"
		                        "%%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n");
	if (o->abi == OFL_WRAP_AMD)
		rc |= ofl_buf_printf(b, "%%__tgt_image_info = type { i32, i32, i32, ptr, ptr }\n");
	rc |= ofl_buf_printf(
	    b,
	    "\n@__start_%s = external hidden constant [0 x %%struct.__tgt_offload_entry]\n"
	    "@__stop_%s = external hidden constant [0 x %%struct.__tgt_offload_entry]\n",
	    sec, sec);
	if (old_abi(o))
		rc |= ofl_buf_printf(
		    b,
		    "@__dummy.omp_offloading.entry = hidden constant [0 x "
		    "%%struct.__tgt_offload_entry] zeroinitializer, section \"%s\"\n",
		    sec);
	else
		rc |= ofl_buf_printf(
		    b,
		    "@__dummy.%s = internal constant [0 x %%struct.__tgt_offload_entry] "
		    "zeroinitializer, section \"%s\"%s\n"
		    "@llvm.compiler.used = appending global [1 x ptr] [ptr "
		    "@__dummy.%s], section \"llvm.metadata\"\n",
		    sec, sec, o->abi == OFL_WRAP_LLVM20 ? ", align 8" : "", sec);
	return rc;
}

static void image_name(char *out, size_t n, size_t i)
{
	if (i == 0)
		snprintf(out, n, ".omp_offloading.device_image");
	else
		snprintf(out, n, ".omp_offloading.device_image.%zu", i);
}

static int omp_globals(struct ofl_buf *b, const struct ofl_wrap_opts *o,
                       const struct ofl_wrap_image *imgs, size_t n)
{
	const char *sec = ofl_wrap_entries_section(o);
	const char *isec = o->relocatable ? ".llvm.offloading.relocatable" : ".llvm.offloading";
	char name[64];
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		image_name(name, sizeof(name), i);
		rc |= ofl_buf_printf(b, "@%s = internal unnamed_addr constant [%llu x i8] ", name,
		                     (unsigned long long)imgs[i].size);
		rc |= put_cstring(b, imgs[i].data, imgs[i].size);
		if (old_abi(o))
			rc |= ofl_buf_append_str(b, "\n");
		else
			rc |= ofl_buf_printf(b, ", section \"%s\", align 8\n", isec);
	}
	rc |=
	    ofl_buf_printf(b,
	                   "@.omp_offloading.device_images = internal unnamed_addr constant [%zu x "
	                   "%%__tgt_device_image] [",
	                   n);
	for (size_t i = 0; i < n && !rc; i++) {
		unsigned long long sz = (unsigned long long)imgs[i].size;
		image_name(name, sizeof(name), i);
		rc |= ofl_buf_printf(b, "%s%%__tgt_device_image { ", i ? ", " : "");
		/* LLVM folds a zero offset to the plain global */
		if (imgs[i].start)
			rc |= ofl_buf_printf(b,
			                     "ptr getelementptr ([%llu x i8], ptr @%s, i64 0, "
			                     "i64 %llu)",
			                     sz, name, (unsigned long long)imgs[i].start);
		else
			rc |= ofl_buf_printf(b, "ptr @%s", name);
		rc |= ofl_buf_printf(b,
		                     ", ptr getelementptr ([%llu x i8], ptr @%s, i64 0, i64 "
		                     "%llu), ptr @__start_%s, ptr @__stop_%s }",
		                     sz, name, (unsigned long long)imgs[i].end, sec, sec);
	}
	rc |=
	    ofl_buf_printf(b,
	                   "]\n@.omp_offloading.descriptor = internal constant %%__tgt_bin_desc { "
	                   "i32 %zu, ptr @.omp_offloading.device_images, ptr @__start_%s, ptr "
	                   "@__stop_%s }\n",
	                   n, sec, sec);
	for (size_t i = 0; o->abi == OFL_WRAP_AMD && i < n && !rc; i++) {
		const char *arch = imgs[i].arch ? imgs[i].arch : "";
		rc |= ofl_buf_printf(b, "@__offload_arch_%zu = internal constant [%zu x i8] ", i,
		                     strlen(arch) + 1);
		rc |= put_cstring(b, (const uint8_t *)arch, strlen(arch) + 1);
		rc |= ofl_buf_printf(
		    b,
		    ", section \".offload_arch_list\"\n"
		    "@.offload_image_info_%zu = internal constant %%__tgt_image_info "
		    "{ i32 1, i32 %zu, i32 %zu, ptr @__offload_arch_%zu, ptr null }\n",
		    i, i, n, i);
	}
	return rc;
}

static int omp_functions(struct ofl_buf *b, const struct ofl_wrap_opts *o, size_t n)
{
	bool old = old_abi(o);
	int rc =
	    ofl_buf_printf(b,
	                   "@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, "
	                   "ptr, ptr } { i32 %d, ptr @.omp_offloading.descriptor_reg, ptr null "
	                   "}]\n",
	                   old ? 1 : 101);
	if (old)
		rc |=
		    ofl_buf_printf(b, "@llvm.global_dtors = appending global [1 x { i32, ptr, ptr "
		                      "}] [{ i32, ptr, ptr } { i32 1, ptr "
		                      "@.omp_offloading.descriptor_unreg, ptr null }]\n");
	rc |= ofl_buf_printf(b, "\ndefine internal void @.omp_offloading.descriptor_reg() section "
	                        "\".text.startup\" {\nentry:\n");
	for (size_t i = 0; o->abi == OFL_WRAP_AMD && i < n; i++)
		rc |= ofl_buf_printf(b,
		                     "  call void @__tgt_register_image_info(ptr "
		                     "@.offload_image_info_%zu)\n",
		                     i);
	rc |=
	    ofl_buf_printf(b, "  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)\n");
	if (!old)
		rc |= ofl_buf_printf(b, "  %%0 = call i32 @atexit(ptr "
		                        "@.omp_offloading.descriptor_unreg)\n");
	rc |= ofl_buf_printf(b, "  ret void\n}\n\ndeclare void @__tgt_register_lib(ptr)\n\n");
	if (o->abi == OFL_WRAP_AMD)
		rc |= ofl_buf_printf(b, "declare void @__tgt_register_image_info(ptr)\n\n");
	if (!old)
		rc |= ofl_buf_printf(b, "declare i32 @atexit(ptr)\n\n");
	rc |= ofl_buf_printf(b, "define internal void @.omp_offloading.descriptor_unreg() section "
	                        "\".text.startup\" {\nentry:\n  call void "
	                        "@__tgt_unregister_lib(ptr @.omp_offloading.descriptor)\n  ret "
	                        "void\n}\n\ndeclare void @__tgt_unregister_lib(ptr)\n");
	return rc;
}

/* CUDA/HIP: the fat binary, its wrapper, the handle and the entry walk. */
static int cuda_globals(struct ofl_buf *b, const struct ofl_wrap_opts *o,
                        const struct ofl_wrap_image *img)
{
	bool cuda = o->kind == OFL_WRAP_CUDA;
	int rc = ofl_buf_printf(b, "@.fatbin_image = internal constant [%llu x i8] ",
	                        (unsigned long long)img->size);
	rc |= put_cstring(b, img->data, img->size);
	rc |= ofl_buf_printf(
	    b,
	    ", section \"%s\"\n@.fatbin_wrapper = internal constant "
	    "%%fatbin_wrapper { i32 %d, i32 1, ptr @.fatbin_image, ptr null }, section "
	    "\"%s\", align 8\n@.%s.binary_handle = internal global ptr null\n",
	    cuda ? ".nv_fatbin" : ".hip_fatbin", cuda ? 0x466243b1 : 0x48495046,
	    cuda ? ".nvFatBinSegment" : ".hipFatBinSegment", cuda ? "cuda" : "hip");
	return rc;
}

/* One basic block per case of the walk; field indices follow the layout. */
static int cuda_walk(struct ofl_buf *b, const struct ofl_wrap_opts *o, const char *p,
                     const char *rt)
{
	bool v20 = o->abi == OFL_WRAP_LLVM20, hip = o->kind == OFL_WRAP_HIP;
	const char *sec = ofl_wrap_entries_section(o);
	int fa = v20 ? 4 : 0, fn = v20 ? 5 : 1, fs = v20 ? 6 : 2, ff = v20 ? 3 : 3;
	int rc = ofl_buf_printf(
	    b,
	    "\ndefine internal void @.%s.globals_reg(ptr %%0) section \".text.startup\" {\n"
	    "entry:\n  br label %%while.entry\n\nwhile.entry:\n"
	    "  %%entry1 = phi ptr [ @__start_%s, %%entry ], [ %%next, %%if.end ]\n"
	    "  %%done = icmp eq ptr %%entry1, @__stop_%s\n"
	    "  br i1 %%done, label %%while.end, label %%check\n\ncheck:\n",
	    p, sec, sec);
	if (v20)
		rc |= ofl_buf_printf(
		    b,
		    "  %%kindp = getelementptr inbounds %%struct.__tgt_offload_entry, "
		    "ptr %%entry1, i32 0, i32 2\n  %%kind = load i16, ptr %%kindp, "
		    "align 2\n  %%ours = icmp eq i16 %%kind, %d\n  br i1 %%ours, "
		    "label %%body, label %%if.end\n\nbody:\n",
		    hip ? 4 : 2);
	else
		rc |= ofl_buf_printf(b, "  br label %%body\n\nbody:\n");
	rc |= ofl_buf_printf(
	    b,
	    "  %%addrp = getelementptr inbounds %%struct.__tgt_offload_entry, ptr %%entry1, i32 "
	    "0, i32 %d\n  %%addr = load ptr, ptr %%addrp, align 8\n"
	    "  %%namep = getelementptr inbounds %%struct.__tgt_offload_entry, ptr %%entry1, i32 "
	    "0, i32 %d\n  %%name = load ptr, ptr %%namep, align 8\n"
	    "  %%sizep = getelementptr inbounds %%struct.__tgt_offload_entry, ptr %%entry1, i32 "
	    "0, i32 %d\n  %%size = load i64, ptr %%sizep, align 8\n"
	    "  %%flagsp = getelementptr inbounds %%struct.__tgt_offload_entry, ptr %%entry1, i32 "
	    "0, i32 %d\n  %%flags = load i32, ptr %%flagsp, align 4\n",
	    fa, fn, fs, ff);
	if (v20)
		rc |= ofl_buf_printf(
		    b, "  %%datap = getelementptr inbounds %%struct.__tgt_offload_entry, "
		       "ptr %%entry1, i32 0, i32 7\n  %%data64 = load i64, ptr %%datap, "
		       "align 8\n  %%data = trunc i64 %%data64 to i32\n"
		       "  %%auxp = getelementptr inbounds %%struct.__tgt_offload_entry, "
		       "ptr %%entry1, i32 0, i32 8\n  %%aux = load ptr, ptr %%auxp, "
		       "align 8\n");
	else
		rc |= ofl_buf_printf(
		    b, "  %%datap = getelementptr inbounds %%struct.__tgt_offload_entry, "
		       "ptr %%entry1, i32 0, i32 4\n  %%data = load i32, ptr %%datap, "
		       "align 4\n");
	rc |= ofl_buf_printf(
	    b,
	    "  %%type = and i32 %%flags, 7\n  %%ext1 = lshr i32 %%flags, 3\n"
	    "  %%extern = and i32 %%ext1, 1\n  %%const1 = lshr i32 %%flags, 4\n"
	    "  %%constant = and i32 %%const1, 1\n  %%norm1 = lshr i32 %%flags, 5\n"
	    "  %%normalized = and i32 %%norm1, 1\n"
	    "  %%isfn = icmp eq i64 %%size, 0\n  br i1 %%isfn, label %%if.then, label %%if.else\n\n"
	    "if.then:\n  %%r = call i32 @%sRegisterFunction(ptr %%0, ptr %%addr, ptr %%name, ptr "
	    "%%name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n"
	    "  br label %%if.end\n\nif.else:\n"
	    "  switch i32 %%type, label %%if.end [\n    i32 0, label %%sw.global\n"
	    "    i32 1, label %%sw.managed\n    i32 2, label %%sw.surface\n"
	    "    i32 3, label %%sw.texture\n  ]\n\nsw.global:\n"
	    "  call void @%sRegisterVar(ptr %%0, ptr %%addr, ptr %%name, ptr %%name, i32 "
	    "%%extern, i64 %%size, i32 %%constant, i32 0)\n  br label %%if.end\n\nsw.managed:\n",
	    rt, rt);
	if (v20)
		rc |= ofl_buf_printf(b,
		                     "  call void @%sRegisterManagedVar(ptr %%0, ptr %%aux, ptr "
		                     "%%addr, ptr %%name, i64 %%size, i32 %%data)\n",
		                     rt);
	rc |= ofl_buf_printf(b, "  br label %%if.end\n\nsw.surface:\n");
	if (hip)
		rc |=
		    ofl_buf_printf(b, "  call void @__hipRegisterSurface(ptr %%0, ptr %%addr, ptr "
		                      "%%name, ptr %%name, i32 %%data, i32 %%extern)\n");
	rc |= ofl_buf_printf(b, "  br label %%if.end\n\nsw.texture:\n");
	if (hip)
		rc |=
		    ofl_buf_printf(b, "  call void @__hipRegisterTexture(ptr %%0, ptr %%addr, ptr "
		                      "%%name, ptr %%name, i32 %%data, i32 %%normalized, i32 "
		                      "%%extern)\n");
	rc |= ofl_buf_printf(b, "  br label %%if.end\n\nif.end:\n  %%next = getelementptr inbounds "
	                        "%%struct.__tgt_offload_entry, ptr %%entry1, i64 1\n  br label "
	                        "%%while.entry\n\nwhile.end:\n  ret void\n}\n");
	return rc;
}

static int cuda_functions(struct ofl_buf *b, const struct ofl_wrap_opts *o)
{
	bool cuda = o->kind == OFL_WRAP_CUDA;
	const char *p = cuda ? "cuda" : "hip", *rt = cuda ? "__cuda" : "__hip";
	int rc = ofl_buf_printf(
	    b,
	    "@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } "
	    "{ i32 101, ptr @.%s.fatbin_reg, ptr null }]\n\n"
	    "define internal void @.%s.fatbin_reg() section \".text.startup\" {\nentry:\n"
	    "  %%0 = call ptr @%sRegisterFatBinary(ptr @.fatbin_wrapper)\n"
	    "  store ptr %%0, ptr @.%s.binary_handle, align 8\n"
	    "  call void @.%s.globals_reg(ptr %%0)\n",
	    p, p, rt, p, p);
	if (cuda)
		rc |= ofl_buf_printf(b, "  call void @__cudaRegisterFatBinaryEnd(ptr %%0)\n");
	rc |= ofl_buf_printf(b,
	                     "  %%1 = call i32 @atexit(ptr @.%s.fatbin_unreg)\n  ret void\n}\n\n"
	                     "declare ptr @%sRegisterFatBinary(ptr)\n\n",
	                     p, rt);
	if (cuda)
		rc |= ofl_buf_printf(b, "declare void @__cudaRegisterFatBinaryEnd(ptr)\n\n");
	rc |= ofl_buf_printf(b,
	                     "declare i32 @atexit(ptr)\n\n"
	                     "define internal void @.%s.fatbin_unreg() section \".text.startup\" "
	                     "{\nentry:\n  %%0 = load ptr, ptr @.%s.binary_handle, align 8\n"
	                     "  call void @%sUnregisterFatBinary(ptr %%0)\n  ret void\n}\n\n"
	                     "declare void @%sUnregisterFatBinary(ptr)\n"
	                     "declare i32 @%sRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, "
	                     "ptr, ptr, ptr)\n"
	                     "declare void @%sRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n"
	                     "declare void @%sRegisterManagedVar(ptr, ptr, ptr, ptr, i64, i32)\n"
	                     "declare void @__hipRegisterSurface(ptr, ptr, ptr, ptr, i32, i32)\n"
	                     "declare void @__hipRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, "
	                     "i32)\n",
	                     p, p, rt, rt, rt, rt, rt);
	return rc | cuda_walk(b, o, p, rt);
}

int ofl_wrap_emit_ll(struct ofl_buf *out, const struct ofl_wrap_opts *o, const char *triple,
                     const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err)
{
	int rc = ofl_wrap_check(o, nimages, err);
	if (rc)
		return rc;
	rc = header(out, o, triple);
	if (o->kind == OFL_WRAP_OPENMP)
		rc |= omp_globals(out, o, imgs, nimages) || omp_functions(out, o, nimages);
	else
		rc |= cuda_globals(out, o, imgs) || cuda_functions(out, o);
	return rc ? OFL_NOMEM(err) : 0;
}
