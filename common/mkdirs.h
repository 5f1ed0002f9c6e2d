/* mkdirs.h - a directory and its missing parents, as mkdir -p makes them.
 *
 * One rule for the shim (aggregate/json.c, when HPCSHIM_OUTPUT names a
 * directory that does not exist yet) and for hpcshim run -o: the ranks of
 * a job create the same directory at the same moment, so a component some
 * other process created first is success, while a component that exists
 * and is not a directory is an error (ENOTDIR).
 */
#ifndef HPCSHIM_COMMON_MKDIRS_H
#define HPCSHIM_COMMON_MKDIRS_H

/* Creates path and its missing parents with mode (the umask applies, as
 * to mkdir(2)).  0 when path is a directory on return, else -1 with errno:
 * ENOTDIR (a component is not a directory), EACCES, EROFS, ENAMETOOLONG,
 * ENOENT (empty path), ... */
int hs_mkdirs(const char *path, int mode);

#endif
