/* Shim (not Apple's file): Darwin's dlsym and RTLD_DEFAULT (as Darwin defines it). */
#ifndef SHIM_DLFCN_H
#define SHIM_DLFCN_H
#define RTLD_DEFAULT ((void *)-2)
void *dlsym(void *restrict, const char *restrict);
#endif
