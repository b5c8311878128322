// cuda_parts for HIP (gfx90a and gfx942, AMDGPU's splitter), run only on a
// machine with an AMD GPU and ROCm's libamdhip64.so (elsewhere: skipped).
// No HIP headers: the attributes and the runtime's C functions used are
// declared here.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" {
int hipMalloc(void **, unsigned long);
int hipMemcpy(void *, const void *, unsigned long, int);
int hipMemcpyToSymbol(const void *, const void *, unsigned long, unsigned long, int);
int hipMemcpyFromSymbol(void *, const void *, unsigned long, unsigned long, int);
int hipDeviceSynchronize(void);
int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
const char *hipGetErrorName(int);
int printf(const char *, ...);
}
enum { TO_DEVICE = 1, TO_HOST = 2, BLOCK = 128 };
__host__ __device__ int mix(int x, int k); // hip_parts_b.hip
extern __device__ int bias[8];             // hip_parts_b.hip
static const int host_bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int total;
#define INDEX (__builtin_amdgcn_workgroup_id_x() * BLOCK + __builtin_amdgcn_workitem_id_x())
/* kernel n (the definition, then its declaration: each use ends with a ;) */
#define K(n)                                                                                       \
	__global__ void k##n(int *v, int m)                                                        \
	{                                                                                          \
		int i = INDEX;                                                                     \
		if (i < m)                                                                         \
			v[i] = mix(v[i], n) + bias[n % 8] + "partition"[i % 9];                    \
	}                                                                                          \
	__global__ void k##n(int *v, int m)
K(0);
K(1);
K(2);
K(3);
K(4);
K(5);
K(6);
K(7);
K(8);
K(9);
K(10);
K(11);
K(12);
K(13);
K(14);
K(15);
__global__ void sum(int *v, int m)
{
	int i = INDEX;
	if (i < m)
		__atomic_fetch_add(&total, v[i], __ATOMIC_RELAXED);
}
int main()
{
	const int n = 256;
	void (*kernels[])(int *, int) = {k0, k1, k2,  k3,  k4,  k5,  k6,  k7,
	                                 k8, k9, k10, k11, k12, k13, k14, k15};
	int h[n], *d, m = n, zero = 0, t = 0, ref = 0;
	for (int i = 0; i < n; i++)
		h[i] = i;
	hipMalloc((void **)&d, sizeof h);
	hipMemcpy(d, h, sizeof h, TO_DEVICE);
	void *args[] = {&d, &m};
	for (int k = 0; k < 16; k++)
		hipLaunchKernel((const void *)kernels[k], dim3{2, 1, 1}, dim3{BLOCK, 1, 1}, args, 0,
		                0);
	hipMemcpyToSymbol((const void *)&total, &zero, sizeof zero, 0, TO_DEVICE);
	hipLaunchKernel((const void *)sum, dim3{2, 1, 1}, dim3{BLOCK, 1, 1}, args, 0, 0);
	hipMemcpyFromSymbol(&t, (const void *)&total, sizeof t, 0, TO_HOST);
	int e = hipDeviceSynchronize();
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 16; k++)
			h[i] = mix(h[i], k) + host_bias[k % 8] + "partition"[i % 9];
		ref += h[i];
	}
	printf("partitions %d %s (%s)\n", t, t == ref ? "ok" : "WRONG", hipGetErrorName(e));
	return e != 0 || t != ref;
}
