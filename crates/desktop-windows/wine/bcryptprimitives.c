/* Minimal bcryptprimitives.dll for Wine 8: Rust >= 1.78 std imports ProcessPrng from it.
 * ProcessPrng always returns TRUE on Windows; fill the buffer via RtlGenRandom
 * (advapi32!SystemFunction036), which Wine 8 implements. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
    (void)inst; (void)reason; (void)reserved;
    return TRUE;
}
