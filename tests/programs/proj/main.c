/* main.c - the project's program: sums the parts and prints the total. */
#include <stdio.h>

#include "parts.h"

int main(void)
{
	long (*parts[])(long) = { part1, part2, part3, part4,
				  part5, part6, part7, part8 };
	long total = 0;

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		total += parts[i](100000);
	printf("bapp total %ld\n", total);
	return 0;
}
