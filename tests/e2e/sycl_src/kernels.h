/* A SYCL kernel launch as SYCL's headers spell it, without them (no
 * libsycl ships with LLVM 22): clang -fsycl outlines the lambda as a
 * device kernel named after KernelName. */
template <typename KernelName, typename KernelType>
[[clang::sycl_kernel_entry_point(KernelName)]] void single_task(KernelType k)
{
	k();
}
