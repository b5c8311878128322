/* CUDA/HIP host code with entries (no headers: the attributes and the
 * launch function are declared here).  Compiled as CUDA and as HIP. */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct stream *stream_t;
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
__device__ int dvar[4];
__constant__ int cvar;
#ifdef __HIP__
__managed__ int mvar;
#endif
__global__ void kern(int *p)
{
}
__global__ void kern2(int *p, int n)
{
}
