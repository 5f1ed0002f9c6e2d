/* part5.c - one piece of the project: a known series. */
#include "parts.h"

long part5(long n)
{
	long s = 0;

	for (long j = 0; j < n; j++)
		s += (j * 5) % 11;
	return s;
}
