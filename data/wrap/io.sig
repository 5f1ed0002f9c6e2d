# io.sig - POSIX and stdio input/output.  HPCSHIM_WRAP=@io
# open() is variadic in C (the mode); with the mode as a fixed third
# argument it is called as if every caller passed one (extra arguments are
# harmless in the ABI: the callee ignores what it does not read).
ssize_t read(int fd, void *buf, size_t count);
ssize_t write(int fd, const void *buf, size_t count);
ssize_t pread(int fd, void *buf, size_t count, off_t offset);
ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t pread64(int fd, void *buf, size_t count, off_t offset);
ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset);
ssize_t readv(int fd, const pointer iov, int iovcnt);
ssize_t writev(int fd, const pointer iov, int iovcnt);
int fsync(int fd);
int fdatasync(int fd);
int open(const char *path, int flags, mode_t mode);
int open64(const char *path, int flags, mode_t mode);
int openat(int dirfd, const char *path, int flags, mode_t mode);
int creat(const char *path, mode_t mode);
size_t fread(void *ptr, size_t size, size_t n, FILE *stream);
size_t fwrite(const void *ptr, size_t size, size_t n, FILE *stream);
pointer fopen(const char *path, const char *mode);
int fclose(FILE *stream);
int fflush(FILE *stream);
