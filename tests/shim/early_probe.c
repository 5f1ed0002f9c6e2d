/* early_probe.c - the page faults a task took before its program ran
 * (tests/shim/test_early.py): a static program without libc whose first act
 * is getrusage(RUSAGE_SELF), printed as one number.  Under perf stat it
 * measures what perf cannot see: perf's forked child before its exec and
 * the exec itself (perf enables its counter at the exec).  Built with
 * -nostdlib -static; exits 77 (skip) on an architecture it does not know.
 */
#include <sys/syscall.h>

struct early_tv {
	long s, us;
};
struct early_ru {
	struct early_tv utime, stime;
	long maxrss, ixrss, idrss, isrss, minflt, majflt, rest[8];
};

static long sys3(long n, long a, long b, long c)
{
	long r = -1;
#if defined(__x86_64__)
	register long rax __asm__("rax") = n;
	register long rdi __asm__("rdi") = a, rsi __asm__("rsi") = b,
			      rdx __asm__("rdx") = c;

	__asm__ volatile("syscall"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(rdx)
			 : "rcx", "r11", "memory");
	r = rax;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a, x1 __asm__("x1") = b, x2 __asm__("x2") = c;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	r = x0;
#else
	(void)n, (void)a, (void)b, (void)c;
#endif
	return r;
}

void _start(void);
void _start(void)
{
	struct early_ru ru;
	char b[24];
	int i = (int)sizeof(b) - 1;
	long v;

	if (sys3(SYS_getrusage, 0 /* RUSAGE_SELF */, (long)&ru, 0) != 0)
		sys3(SYS_exit_group, 77, 0, 0);
	v = ru.minflt + ru.majflt;
	b[i] = '\n';
	do
		b[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	sys3(SYS_write, 1, (long)(b + i), (long)sizeof(b) - i);
	sys3(SYS_exit_group, 0, 0, 0);
}
