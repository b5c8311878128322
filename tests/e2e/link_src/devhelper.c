/* The device's helper only: this object's host part defines nothing. */
#pragma omp begin declare target device_type(nohost)
int helper(int x)
{
	return x + 22;
}
#pragma omp end declare target
