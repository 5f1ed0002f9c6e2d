/* unit_reach.c - tools/reach.c: the ELF check on files written here (every
 * branch of the header: PT_INTERP or not, 32 and 64 bits, foreign byte
 * order, truncated, not ELF), a "#!" script judged by its interpreter, the
 * AT_SECURE rule on the ids, and the PATH search as execvp does it. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "tools/reach.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#define OTHER_DATA ELFDATA2MSB
#else
#define NATIVE_DATA ELFDATA2MSB
#define OTHER_DATA ELFDATA2LSB
#endif

static char dir[] = "/tmp/hpcshim-unit-reach-XXXXXX";

static void put(const char *name, const void *data, size_t n, mode_t mode, char *path,
		size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	chmod(path, mode);
}

/* A 64-bit ELF header and two program headers: PT_LOAD, then type2. */
static size_t elf64(unsigned char *buf, uint32_t type2, int flip_order)
{
	Elf64_Ehdr h;
	Elf64_Phdr ph[2];

	memset(&h, 0, sizeof(h));
	memset(ph, 0, sizeof(ph));
	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = flip_order ? OTHER_DATA : NATIVE_DATA;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_EXEC;
	h.e_phoff = sizeof(h);
	h.e_phentsize = sizeof(Elf64_Phdr);
	h.e_phnum = 2;
	ph[0].p_type = PT_LOAD;
	ph[1].p_type = type2;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), ph, sizeof(ph));
	return sizeof(h) + sizeof(ph);
}

static size_t elf32(unsigned char *buf, uint32_t type2)
{
	Elf32_Ehdr h;
	Elf32_Phdr ph[2];

	memset(&h, 0, sizeof(h));
	memset(ph, 0, sizeof(ph));
	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS32;
	h.e_ident[EI_DATA] = NATIVE_DATA;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_DYN;
	h.e_phoff = sizeof(h);
	h.e_phentsize = sizeof(Elf32_Phdr);
	h.e_phnum = 2;
	ph[0].p_type = type2;
	ph[1].p_type = PT_LOAD;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), ph, sizeof(ph));
	return sizeof(h) + sizeof(ph);
}

static void test_elf(void)
{
	unsigned char buf[512];
	char path[512], stat_path[512], script[600], why[1024];
	size_t n;

	n = elf64(buf, PT_NOTE, 0);
	put("static64", buf, n, 0755, stat_path, sizeof(stat_path));
	TAP_OK(reach__elf_static(stat_path) == 1, "64-bit ELF without PT_INTERP: static");
	n = elf64(buf, PT_INTERP, 0);
	put("dyn64", buf, n, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == 0, "64-bit ELF with PT_INTERP: dynamic");
	n = elf32(buf, PT_NOTE);
	put("static32", buf, n, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == 1, "32-bit ELF without PT_INTERP: static");
	n = elf32(buf, PT_INTERP);
	put("dyn32", buf, n, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == 0, "32-bit ELF with PT_INTERP first: dynamic");

	n = elf64(buf, PT_NOTE, 1);
	put("foreign", buf, n, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == -1, "the other byte order: cannot tell");
	n = elf64(buf, PT_NOTE, 0);
	put("truncated", buf, n - sizeof(Elf64_Phdr) - 4, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == -1, "program headers cut short: cannot tell");
	n = elf64(buf, PT_NOTE, 0);
	((Elf64_Ehdr *)buf)->e_phentsize = 40;
	put("phentsize", buf, n, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == -1, "a wrong e_phentsize: cannot tell");
	n = elf64(buf, PT_NOTE, 0);
	((Elf64_Ehdr *)buf)->e_type = ET_REL;
	put("object", buf, n, 0644, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == -1, "a relocatable object: cannot tell");
	put("text", "hello\n", 6, 0755, path, sizeof(path));
	TAP_OK(reach__elf_static(path) == -1, "not ELF: cannot tell");
	TAP_OK(reach__elf_static("/proc/self/exe") == 0, "this test program is dynamic");
	snprintf(path, sizeof(path), "%s/missing", dir);
	TAP_OK(reach__elf_static(path) == -1, "a missing file: cannot tell");

	TAP_OK(reach__check(stat_path, why, sizeof(why)) == REACH_STATIC &&
		       strstr(why, "static executable"),
	       "check: a static file, why '%s'", why);
	TAP_OK(reach__check("/proc/self/exe", why, sizeof(why)) == REACH_OK,
	       "check: this dynamic program is reached");
	n = (size_t)snprintf(script, sizeof(script), "#! \t%s -x\necho\n", stat_path);
	put("script", script, n, 0755, path, sizeof(path));
	why[0] = '\0';
	TAP_OK(reach__check(path, why, sizeof(why)) == REACH_STATIC &&
		       strncmp(why, "runs ", 5) == 0 && strstr(why, stat_path) &&
		       strstr(why, ", which is a static executable"),
	       "check: a script whose interpreter is static, why '%s'", why);
	n = (size_t)snprintf(script, sizeof(script), "#!/proc/self/exe\n");
	put("script2", script, n, 0755, path, sizeof(path));
	TAP_OK(reach__check(path, why, sizeof(why)) == REACH_OK,
	       "check: a script whose interpreter is dynamic is reached");
}

static void test_secure(void)
{
	struct reach_ids user = { 1000, 1000, 100, 100, 1 }, root = { 0, 0, 0, 0, 1 };
	struct reach_ids nosuid = { 1000, 1000, 100, 100, 0 };
	struct reach_ids euid = { 1000, 0, 100, 100, 1 };
	char why[256] = "";

	TAP_OK(reach__secure(S_IFREG | 04755, 0, 0, 0, &user, why, sizeof(why)) == 1 &&
		       strcmp(why, "is set-user-ID (owner uid 0, run by uid 1000)") == 0,
	       "set-user-ID root run by a user: secure, '%s'", why);
	TAP_OK(reach__secure(S_IFREG | 04755, 0, 0, 0, &root, why, sizeof(why)) == 0,
	       "set-user-ID root run by root: not secure");
	TAP_OK(reach__secure(S_IFREG | 04755, 1000, 0, 0, &user, why, sizeof(why)) == 0,
	       "set-user-ID to the caller itself: not secure");
	TAP_OK(reach__secure(S_IFREG | 04755, 0, 0, 0, &nosuid, why, sizeof(why)) == 0,
	       "set-user-ID on a nosuid mount (or no_new_privs): not secure");
	TAP_OK(reach__secure(S_IFREG | 02755, 0, 0, 0, &user, why, sizeof(why)) == 1 &&
		       strcmp(why, "is set-group-ID (group gid 0, run by gid 100)") == 0,
	       "set-group-ID to another group: secure, '%s'", why);
	TAP_OK(reach__secure(S_IFREG | 02745, 0, 0, 0, &user, why, sizeof(why)) == 0,
	       "set-group-ID bit without group execute (mandatory locking): not secure");
	TAP_OK(reach__secure(S_IFREG | 0755, 0, 0, 1, &user, why, sizeof(why)) == 1 &&
		       strstr(why, "file capabilities"),
	       "file capabilities run by a user: secure, '%s'", why);
	TAP_OK(reach__secure(S_IFREG | 0755, 0, 0, 1, &root, why, sizeof(why)) == 0,
	       "file capabilities run by root: not secure");
	TAP_OK(reach__secure(S_IFREG | 0755, 0, 0, 0, &euid, why, sizeof(why)) == 1,
	       "a caller whose effective uid is not its real one: secure");
	TAP_OK(reach__secure(S_IFREG | 0755, 0, 0, 0, &user, why, sizeof(why)) == 0,
	       "a plain file: not secure");
}

static void test_resolve(void)
{
	char a[600], b[600], path[600], out[600], pathvar[1300];
	const char *old = getenv("PATH");

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	mkdir(a, 0755);
	mkdir(b, 0755);
	put("a/prog", "x", 1, 0644, path, sizeof(path)); /* not executable: skipped */
	put("b/prog", "x", 1, 0755, path, sizeof(path));
	snprintf(pathvar, sizeof(pathvar), "%s::%s", a, b);
	setenv("PATH", pathvar, 1);
	TAP_OK(reach__resolve("prog", out, sizeof(out)) == 0 && strcmp(out, path) == 0,
	       "PATH search: the first executable file (%s)", out);
	TAP_OK(reach__resolve("no-such-prog", out, sizeof(out)) == -1,
	       "PATH search: none found");
	TAP_OK(reach__resolve("./rel/prog", out, sizeof(out)) == 0 &&
		       strcmp(out, "./rel/prog") == 0,
	       "a name with '/' is taken as it is");
	unsetenv("PATH");
	TAP_OK(reach__resolve("sh", out, sizeof(out)) == 0 && strcmp(out, "/bin/sh") == 0,
	       "PATH unset: execvp's /bin:/usr/bin (%s)", out);
	if (old)
		setenv("PATH", old, 1);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_elf();
	test_secure();
	test_resolve();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TAP_OK(system(cmd) == 0, "test directory removed");
	return tap_done();
}
