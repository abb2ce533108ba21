// The wrappers that need _GNU_SOURCE (see CSystemLinux.h); the epoll ones are inline there.
#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "CSystemLinux.h"

long cstub_splice(int from, int to, unsigned long length) {
    return (long)splice(from, NULL, to, NULL, (size_t)length, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}

int cstub_pipe_nonblocking(int fds[2]) { return pipe2(fds, O_NONBLOCK | O_CLOEXEC); }

int cstub_set_pipe_size(int fd, int bytes) { return fcntl(fd, F_SETPIPE_SZ, bytes); }

int cstub_block_sigpipe(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}
#endif
