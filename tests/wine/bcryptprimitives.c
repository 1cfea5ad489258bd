/*
 * bcryptprimitives.dll for wine 8 (Debian 12's), which has none: Go's runtime (1.22 and later)
 * loads it at start-up for ProcessPrng, its source of random bytes, and exits without it. This DLL
 * gives ProcessPrng over RtlGenRandom (advapi32's SystemFunction036), which wine has. Test
 * infrastructure only: scripts/platform-builds.sh builds it with zig into the wine prefix that
 * runs the Go binding's Windows tests; it is never shipped, and a real Windows has its own.
 */
#include <windows.h>
/* ntsecapi.h declares RtlGenRandom as SystemFunction036 without NTAPI on some headers. */
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

/* Fills data[0..len) with random bytes; TRUE, or FALSE when the system could not. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    const ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
