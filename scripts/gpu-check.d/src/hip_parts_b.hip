// The other unit of hip_parts: a function both sides call, a device global.
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
__device__ int bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static __host__ __device__ int salt(int k)
{
	return (k * 7 + 1) % 5;
}
__host__ __device__ int mix(int x, int k)
{
	return (x * (k + 3) + salt(k)) % 1000;
}
