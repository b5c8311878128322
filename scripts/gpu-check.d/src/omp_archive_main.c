/* Device code from a static archive: lib_square is defined only in
 * libompdev.a and called only inside a target region. */
#include <stdio.h>
#pragma omp declare target
int lib_square(int x);
#pragma omp end declare target
int main(void)
{
	int r[4];
#pragma omp target map(from : r)
	for (int i = 0; i < 4; i++)
		r[i] = lib_square(i + 1);
	printf("squares %d %d %d %d\n", r[0], r[1], r[2], r[3]);
	return 0;
}
