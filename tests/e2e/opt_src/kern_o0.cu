/* A HIP kernel whose device code LLVM 22 links into different images at O0
 * and O2 (gfx90a, checked), compiled at -O2 (no optnone): only the link's
 * level tells them apart. */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct stream *stream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
__device__ static int step(const int *v, int i)
{
	return v[i] * 3 + v[(i * 7) % 48] / (i + 1);
}
__global__ void kh(int *a)
{
	for (int i = 0; i < 48; i++)
		a[i] = step(a, i) + (a[i] > 10 ? a[(i + 5) % 48] : i);
}
