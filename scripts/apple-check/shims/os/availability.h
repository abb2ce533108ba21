/* Shim (not Apple's file): the SDK's <os/availability.h>. xnu's open Availability.h handles
 * at most four platforms per macro, so API_* are mapped here, each platform(version) to clang's
 * availability attribute, so that deprecation and (un)availability stay real in the check. */
#ifndef SHIM_OS_AVAILABILITY_H
#define SHIM_OS_AVAILABILITY_H
#include <Availability.h>

#define SHIM_EACH_1(m, a, x) m(a, x)
#define SHIM_EACH_2(m, a, x, ...) m(a, x) SHIM_EACH_1(m, a, __VA_ARGS__)
#define SHIM_EACH_3(m, a, x, ...) m(a, x) SHIM_EACH_2(m, a, __VA_ARGS__)
#define SHIM_EACH_4(m, a, x, ...) m(a, x) SHIM_EACH_3(m, a, __VA_ARGS__)
#define SHIM_EACH_5(m, a, x, ...) m(a, x) SHIM_EACH_4(m, a, __VA_ARGS__)
#define SHIM_EACH_6(m, a, x, ...) m(a, x) SHIM_EACH_5(m, a, __VA_ARGS__)
#define SHIM_EACH_7(m, a, x, ...) m(a, x) SHIM_EACH_6(m, a, __VA_ARGS__)
#define SHIM_EACH_8(m, a, x, ...) m(a, x) SHIM_EACH_7(m, a, __VA_ARGS__)
#define SHIM_EACH_9(m, a, x, ...) m(a, x) SHIM_EACH_8(m, a, __VA_ARGS__)
#define SHIM_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, NAME, ...) NAME
#define SHIM_EACH(m, a, ...) SHIM_PICK(__VA_ARGS__, SHIM_EACH_9, SHIM_EACH_8, SHIM_EACH_7, SHIM_EACH_6, SHIM_EACH_5, \
    SHIM_EACH_4, SHIM_EACH_3, SHIM_EACH_2, SHIM_EACH_1)(m, a, __VA_ARGS__)

/* platform(version) -> SHIM_AV_platform(version) */
#define SHIM_AVAILABLE(a, p) SHIM_AV_##p
#define SHIM_AV_macos(v) __attribute__((availability(macos, introduced = v)))
#define SHIM_AV_macosx(v) __attribute__((availability(macos, introduced = v)))
#define SHIM_AV_ios(v) __attribute__((availability(ios, introduced = v)))
#define SHIM_AV_watchos(v) __attribute__((availability(watchos, introduced = v)))
#define SHIM_AV_tvos(v) __attribute__((availability(tvos, introduced = v)))
#define SHIM_AV_visionos(v) __attribute__((availability(visionos, introduced = v)))
#define SHIM_AV_xros(v) __attribute__((availability(visionos, introduced = v)))
#define SHIM_AV_bridgeos(v)
#define SHIM_AV_driverkit(v)
#define SHIM_AV_macCatalyst(v)

#define SHIM_UNAVAILABLE(a, p) SHIM_UN_##p
#define SHIM_UN_macos __attribute__((availability(macos, unavailable)))
#define SHIM_UN_macosx __attribute__((availability(macos, unavailable)))
#define SHIM_UN_ios __attribute__((availability(ios, unavailable)))
#define SHIM_UN_watchos __attribute__((availability(watchos, unavailable)))
#define SHIM_UN_tvos __attribute__((availability(tvos, unavailable)))
#define SHIM_UN_visionos __attribute__((availability(visionos, unavailable)))
#define SHIM_UN_bridgeos
#define SHIM_UN_driverkit
#define SHIM_UN_macCatalyst
#define SHIM_UN_xros __attribute__((availability(visionos, unavailable)))

/* platform(introduced, deprecated) -> SHIM_DE_platform(message, introduced, deprecated) */
#define SHIM_DEPRECATED(m, p) SHIM_DE_##p, m)
#define SHIM_DE_macos(i, d) SHIM_DE_ATTR(macos, i, d
#define SHIM_DE_macosx(i, d) SHIM_DE_ATTR(macos, i, d
#define SHIM_DE_ios(i, d) SHIM_DE_ATTR(ios, i, d
#define SHIM_DE_watchos(i, d) SHIM_DE_ATTR(watchos, i, d
#define SHIM_DE_tvos(i, d) SHIM_DE_ATTR(tvos, i, d
#define SHIM_DE_visionos(i, d) SHIM_DE_ATTR(visionos, i, d
#define SHIM_DE_xros(i, d) SHIM_DE_ATTR(visionos, i, d
#define SHIM_DE_bridgeos(i, d) SHIM_DE_NONE(
#define SHIM_DE_driverkit(i, d) SHIM_DE_NONE(
#define SHIM_DE_macCatalyst(i, d) SHIM_DE_NONE(
#define SHIM_DE_ATTR(p, i, d, m) __attribute__((availability(p, introduced = i, deprecated = d, message = m)))
#define SHIM_DE_NONE(...)
#define API_TO_BE_DEPRECATED 100000
#define API_TO_BE_DEPRECATED_MACOS 100000
#define API_TO_BE_DEPRECATED_IOS 100000

#define API_AVAILABLE(...) SHIM_EACH(SHIM_AVAILABLE, 0, __VA_ARGS__)
#define API_UNAVAILABLE(...) SHIM_EACH(SHIM_UNAVAILABLE, 0, __VA_ARGS__)
#define API_DEPRECATED(m, ...) SHIM_EACH(SHIM_DEPRECATED_CALL, m, __VA_ARGS__)
#define API_DEPRECATED_WITH_REPLACEMENT(r, ...) SHIM_EACH(SHIM_DEPRECATED_CALL, "replaced by " r, __VA_ARGS__)
#define SHIM_DEPRECATED_CALL(m, p) SHIM_EXPAND(SHIM_DEPRECATED(m, p))
#define SHIM_EXPAND(x) x
#define API_AVAILABLE_BEGIN(...)
#define API_AVAILABLE_END
#define API_DEPRECATED_BEGIN(...)
#define API_DEPRECATED_END
#define API_UNAVAILABLE_BEGIN(...)
#define API_UNAVAILABLE_END
#define SPI_AVAILABLE(...)
#define SPI_DEPRECATED(...)

/* The SDK's <Availability.h> spells these with the same meaning. */
#undef __API_AVAILABLE
#undef __API_UNAVAILABLE
#undef __API_DEPRECATED
#undef __API_DEPRECATED_WITH_REPLACEMENT
#define __API_AVAILABLE(...) API_AVAILABLE(__VA_ARGS__)
#define __API_UNAVAILABLE(...) API_UNAVAILABLE(__VA_ARGS__)
#define __API_DEPRECATED(...) API_DEPRECATED(__VA_ARGS__)
#define __API_DEPRECATED_WITH_REPLACEMENT(...) API_DEPRECATED_WITH_REPLACEMENT(__VA_ARGS__)

/* The older spellings: xnu's AvailabilityInternal.h lacks the newer versions they paste
 * together, so here they keep only "deprecated" (no platform); none is used by securetransport.c. */
#undef __OSX_AVAILABLE_STARTING
#undef __OSX_AVAILABLE_BUT_DEPRECATED
#undef __OSX_AVAILABLE_BUT_DEPRECATED_MSG
#define __OSX_AVAILABLE_STARTING(_osx, _ios)
#define __OSX_AVAILABLE_BUT_DEPRECATED(_osxIntro, _osxDep, _iosIntro, _iosDep) __attribute__((deprecated))
#define __OSX_AVAILABLE_BUT_DEPRECATED_MSG(_osxIntro, _osxDep, _iosIntro, _iosDep, _msg) \
    __attribute__((deprecated(_msg)))
#endif
