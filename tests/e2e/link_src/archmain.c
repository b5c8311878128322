/* Only the gfx942 code calls helper(): for gfx942 the archive member
 * defining it (archhelper.c) is taken by the device symbol rule, for
 * gfx90a it is not. */
#pragma omp declare target
int helper(int x);
#pragma omp end declare target

int run(int x)
{
#pragma omp target map(tofrom : x)
	{
#if defined(__gfx942__)
		x = helper(x);
#endif
	}
	return x;
}
