/* The host's helper (plain C, no device code). */
int helper(int x)
{
	return -x;
}
