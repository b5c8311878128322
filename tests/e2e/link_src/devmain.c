/* Device code calls helper(); the host has its own helper (hosthelper.c),
 * so only the device link needs the archive member defining the device's
 * (devhelper.c): taken by the device symbol rule. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int helper(int x);
#pragma omp end declare target

int main(void)
{
	int r = 0, dev = 0;
#pragma omp target map(from : r, dev)
	{
		r = helper(20);
		dev = !omp_is_initial_device();
	}
	printf("helper: %d, on device: %d\n", r, dev);
	return 0;
}
