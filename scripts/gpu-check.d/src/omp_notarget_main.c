/* With omp_notarget_data.c, an object that has no target region: only
 * data directives and API calls, still compiled for sm_90. */
#include <stdio.h>
void fill_on_device(int *p, int n);
int count_devices(void);
int main(void)
{
	int v[16];
	fill_on_device(v, 16);
	int s = 0;
	for (int i = 0; i < 16; i++)
		s += v[i];
	printf("filled %d\ndevices %s\n", s, count_devices() > 0 ? "some" : "none");
	return 0;
}
