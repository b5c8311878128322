// The other unit of cuda_parts: a function both sides call, a device
// global, a static table.
__device__ int bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static __host__ __device__ int salt(int k)
{
	return (k * 7 + 1) % 5;
}
__host__ __device__ int mix(int x, int k)
{
	return (x * (k + 3) + salt(k)) % 1000;
}
