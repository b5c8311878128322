/* The other unit of omp_parts: a function both sides call, a global. */
#pragma omp declare target
int bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static int salt(int k)
{
	return (k * 7 + 1) % 5;
}
int mix(int x, int k)
{
	return (x * (k + 3) + salt(k)) % 1000;
}
#pragma omp end declare target
