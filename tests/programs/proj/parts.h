/* parts.h - the pieces of the small project built with make -j2 by
 * tests/programs/test_programs.py: each partN.c computes one known value. */
#ifndef PARTS_H
#define PARTS_H

long part1(long n);
long part2(long n);
long part3(long n);
long part4(long n);
long part5(long n);
long part6(long n);
long part7(long n);
long part8(long n);

#endif
