/* helper() for archmain.c's gfx942 code.  The member's gfx90a code (its
 * kernel) calls other(), which no member of the link defines for gfx90a
 * alone: linked into the gfx90a image, where nothing needs it, it would
 * be an undefined symbol. */
#pragma omp declare target
int other(int x);
int helper(int x)
{
	return x + 1;
}
#pragma omp end declare target

void kernel_of_helper(int *p)
{
#pragma omp target map(tofrom : p[0 : 1])
	{
#if defined(__gfx90a__)
		p[0] = other(p[0]);
#endif
	}
}
