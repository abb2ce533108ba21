/* Shim (not Apple's file): CarbonCore's MacTypes.h is not open source. The types the SDK's
 * MacTypes.h defines for LP64, with the same definitions. */
#ifndef __MACTYPES__
#define __MACTYPES__
#include <stdint.h>
typedef unsigned char Boolean;
typedef unsigned char UInt8;
typedef signed char SInt8;
typedef unsigned short UInt16;
typedef signed short SInt16;
typedef unsigned int UInt32;
typedef signed int SInt32;
typedef uint64_t UInt64;
typedef int64_t SInt64;
typedef SInt32 OSStatus;
typedef float Float32;
typedef double Float64;
typedef unsigned short UniChar;
typedef unsigned long UniCharCount;
typedef unsigned char *StringPtr;
typedef const unsigned char *ConstStringPtr;
typedef unsigned char Str255[256];
typedef const unsigned char *ConstStr255Param;
typedef SInt16 OSErr;
typedef SInt16 RegionCode;
typedef SInt16 LangCode;
typedef SInt16 ScriptCode;
typedef UInt32 FourCharCode;
typedef FourCharCode OSType;
typedef UInt8 Byte;
typedef SInt8 SignedByte;
typedef UInt32 UTF32Char;
typedef UInt16 UTF16Char;
typedef UInt8 UTF8Char;
#define noErr 0
#endif
