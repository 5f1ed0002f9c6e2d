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
ssize_t preadv(int fd, const pointer iov, int iovcnt, off_t offset);
ssize_t pwritev(int fd, const pointer iov, int iovcnt, off_t offset);
ssize_t preadv64(int fd, const pointer iov, int iovcnt, off_t offset);
ssize_t pwritev64(int fd, const pointer iov, int iovcnt, off_t offset);
ssize_t preadv2(int fd, const pointer iov, int iovcnt, off_t offset, int flags);
ssize_t pwritev2(int fd, const pointer iov, int iovcnt, off_t offset, int flags);
ssize_t preadv64v2(int fd, const pointer iov, int iovcnt, off_t offset, int flags);
ssize_t pwritev64v2(int fd, const pointer iov, int iovcnt, off_t offset, int flags);
# Copies inside the kernel: the bytes once, as moved (docs/environment.md,
# HPCSHIM_PROFILE).
ssize_t sendfile(int out_fd, int in_fd, pointer offset, size_t count);
ssize_t sendfile64(int out_fd, int in_fd, pointer offset, size_t count);
ssize_t copy_file_range(int fd_in, pointer off_in, int fd_out, pointer off_out, size_t len, unsigned int flags);
# Sockets (and pipes, for send/recv's callers); socklen_t is unsigned int.
ssize_t send(int fd, const pointer buf, size_t len, int flags);
ssize_t recv(int fd, pointer buf, size_t len, int flags);
ssize_t sendto(int fd, const pointer buf, size_t len, int flags, const pointer addr, unsigned int addrlen);
ssize_t recvfrom(int fd, pointer buf, size_t len, int flags, pointer addr, pointer addrlen);
ssize_t sendmsg(int fd, const pointer msg, int flags);
ssize_t recvmsg(int fd, pointer msg, int flags);
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
