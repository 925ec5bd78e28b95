// SPDX-License-Identifier: GPL-2.0-only
/* Functions the branch-stack tests point branch entries at (the file is
 * built but never run). */
#include <stdio.h>

__attribute__((noinline)) int branch_alpha(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int branch_beta(int x)
{
	return branch_alpha(x) ^ 0x55;
}

__attribute__((noinline)) int branch_gamma(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += branch_beta(i);
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", branch_gamma(argc));
	return 0;
}
