// epoll for Swift on Linux. Glibc's Swift module does not export epoll_create1, epoll_ctl,
// epoll_wait or struct epoll_event (verified on Swift 6.3.1), and epoll_event is a packed struct
// on x86_64, which Swift cannot lay out. These inline wrappers take and return plain values.
// On other platforms the header is empty and nothing here is used.
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
#endif

#endif
