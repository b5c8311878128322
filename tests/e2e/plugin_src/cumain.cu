/* A kernel calling a __device__ function of a static library (culib.cu). */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct stream *stream_t;
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
__device__ int lib_cube(int x);
__global__ void cube(int *p)
{
	*p = lib_cube(*p);
}
