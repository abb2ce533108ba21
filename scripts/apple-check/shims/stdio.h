/* Shim (not Apple's file): what securetransport.c and the checked headers use of stdio.h. */
#ifndef SHIM_STDIO_H
#define SHIM_STDIO_H
#include <stddef.h>
#include <stdarg.h>
typedef struct __sFILE FILE;
int snprintf(char *restrict, size_t, const char *restrict, ...) __attribute__((__format__(__printf__, 3, 4)));
int vsnprintf(char *restrict, size_t, const char *restrict, va_list);
#endif
