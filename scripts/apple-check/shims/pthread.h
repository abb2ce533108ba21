/* Shim (not Apple's file; libpthread is not in these repos): pthread_once as Darwin declares it. */
#ifndef SHIM_PTHREAD_H
#define SHIM_PTHREAD_H
#include <sys/types.h>
#include <sys/_pthread/_pthread_once_t.h>
#define _PTHREAD_ONCE_SIG_init 0x30B1BCBA
#define PTHREAD_ONCE_INIT {_PTHREAD_ONCE_SIG_init, {0}}
int pthread_once(pthread_once_t *, void (*)(void));
#endif
