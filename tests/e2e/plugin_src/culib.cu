/* A __device__ function in a static library, called only from device code
 * (cumain.cu): the host link never pulls its member; the device link needs
 * it. */
#define __device__ __attribute__((device))
__device__ int lib_cube(int x)
{
	return x * x * x;
}
