// epoll for Swift on Linux. Glibc's Swift module does not export epoll_create1, epoll_ctl,
// epoll_wait or struct epoll_event (verified on Swift 6.3.1), and epoll_event is a packed struct
// on x86_64, which Swift cannot lay out. These inline wrappers take and return plain values.
// On other platforms the header is empty and nothing here is used.
//
// splice(2), pipe2(2) and F_SETPIPE_SZ need _GNU_SOURCE, which a header imported as a Clang
// module cannot turn on for glibc's own (already built) module: those wrappers are real
// functions in shim.c, compiled with _GNU_SOURCE, declared here.
#ifndef CSYSTEMLINUX_H
#define CSYSTEMLINUX_H

#include <stdint.h>

/// One ready descriptor, unpacked.
typedef struct {
    int32_t fd;
    uint32_t events;
} cstub_ready_event;

#if defined(__linux__)
#include <sys/epoll.h>
#include <errno.h>

static const uint32_t cstub_epollin = EPOLLIN;
static const uint32_t cstub_epollout = EPOLLOUT;
static const uint32_t cstub_epollerr = EPOLLERR;
static const uint32_t cstub_epollhup = EPOLLHUP;
static const uint32_t cstub_epollrdhup = EPOLLRDHUP;
static const uint32_t cstub_epollexclusive = EPOLLEXCLUSIVE;
static const int cstub_epoll_ctl_add = EPOLL_CTL_ADD;
static const int cstub_epoll_ctl_mod = EPOLL_CTL_MOD;
static const int cstub_epoll_ctl_del = EPOLL_CTL_DEL;

/// -1 and errno on failure.
static inline int cstub_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/// -1 and errno on failure. The descriptor itself is the event's data.
static inline int cstub_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = 0;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

/// Waits and copies up to `max` ready events into `out`; returns their number, or -1 and errno.
/// `scratch` must hold `max` epoll_events (the caller allocates it once per loop, through
/// cstub_epoll_event_size).
static inline int cstub_epoll_wait(int epfd, void *scratch, cstub_ready_event *out, int max, int timeout) {
    struct epoll_event *events = (struct epoll_event *)scratch;
    int n = epoll_wait(epfd, events, max, timeout);
    for (int i = 0; i < n; i++) {
        out[i].fd = events[i].data.fd;
        out[i].events = events[i].events;
    }
    return n;
}

static inline int cstub_epoll_event_size(void) { return (int)sizeof(struct epoll_event); }

/// splice(2) with SPLICE_F_MOVE | SPLICE_F_NONBLOCK, no offsets (sockets and pipes): bytes
/// moved, 0 at end of input, or -1 and errno (EAGAIN: the source is dry or the destination full).
long cstub_splice(int from, int to, unsigned long length);

/// A pipe, both ends non-blocking and close-on-exec: 0, or -1 and errno.
int cstub_pipe_nonblocking(int fds[2]);

/// Asks for a pipe of `bytes` (F_SETPIPE_SZ): the size it got, or -1 and errno (EPERM past
/// /proc/sys/fs/pipe-max-size or the user's pipe pages).
int cstub_set_pipe_size(int fd, int bytes);

/// Blocks SIGPIPE for the calling thread: splice(2) into a socket whose peer is gone raises it,
/// and has no MSG_NOSIGNAL. 0, or an error number.
int cstub_block_sigpipe(void);
#endif

#endif
