/* Declare-target globals: device copies updated both ways, a device
 * function reading them. */
#include <stdio.h>
#pragma omp declare target
int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int scale = 3;
static int weigh(int i) { return table[i] * scale; }
#pragma omp end declare target
int main(void)
{
	int out[8];
	scale = 5;
#pragma omp target update to(scale)
#pragma omp target map(from : out)
	for (int i = 0; i < 8; i++)
		out[i] = weigh(i), table[i] = -table[i];
#pragma omp target update from(table)
	int s = 0, t = 0;
	for (int i = 0; i < 8; i++)
		s += out[i], t += table[i];
	printf("weighed %d\ntable %d\n", s, t);
	return 0;
}
