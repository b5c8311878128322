/* Device code for tests/e2e/link_partitions.sh, one translation unit per
 * -DFID=<n>: kernels k<n>_0 to k<n>_2, a device global, a helper, a
 * static array and a string literal (a private global named ".str", and
 * ".str.1" and on once LTO has linked the units: names PTX does not
 * take).  -DEDIT=<x> changes one kernel only.
 * No CUDA headers: the attributes and the launch function are declared
 * here (compiled as CUDA or HIP). */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct stream *stream_t;
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(x, FID)
#define KERNEL(i) CAT(NAME(k), CAT(_, i))
#ifndef EDIT
#define EDIT 3
#endif

__device__ float NAME(dg)[16];
static __device__ const char NAME(msg)[] = "partition";

__device__ __attribute__((noinline)) float NAME(helper)(float x, int i)
{
	return x * (float)(i + FID) + NAME(dg)[i & 15] + (float)NAME(msg)[i % 9] +
	       (float)"literal"[i % 7];
}

__global__ void KERNEL(0)(float *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = NAME(helper)(p[i], i) * EDIT;
}

__global__ void KERNEL(1)(float *p, int n)
{
	float s = 0;
	for (int i = 0; i < n; i++)
		s = s * 0.5f + NAME(helper)(p[i], i + 1);
	p[0] = s;
}

__global__ void KERNEL(2)(float *p, int n)
{
	for (int i = 1; i < n; i++)
		p[i] = p[i - 1] * (float)(FID + 2) - NAME(dg)[i & 15];
}
