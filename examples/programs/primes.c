/* Compiled inside the sandbox with gcc, then run. */
#include <stdio.h>

int main(void)
{
	int count = 0;

	for (int n = 2; n < 100000; n++) {
		int prime = 1;

		for (int d = 2; d * d <= n && prime; d++)
			prime = n % d != 0;
		count += prime;
	}
	printf("%d primes below 100000\n", count);
	return 0;
}
