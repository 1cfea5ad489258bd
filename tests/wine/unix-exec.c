/* A Windows program that runs one Linux program (UNIX_PROGRAM, given when it is compiled) with
 * its own arguments, waits for it and exits with its status: for tests that run under wine and
 * start the build machine's compiler, zig cc (the Rust crates' tests compile small C programs
 * against the engine: scripts/platform-builds.sh, target x86_64-windows-rust). wine starts a
 * Linux program that a Windows program asks CreateProcess for, but detached: no process handle
 * comes back (the call fails with ERROR_INVALID_HANDLE), so nothing can wait for it. wine's own
 * ntdll export __wine_unix_spawnvp (which winebrowser uses) runs one and waits.
 *
 * The arguments reach the Linux program as UTF-8, with every '\' made '/': the tests pass the
 * build machine's paths, to which Rust's Path::join adds '\' under Windows. The Linux program
 * writes to wine's own standard output and error (the test's log), not to the test's pipes. */
#include <windows.h>
/* after windows.h, which it needs */
#include <shellapi.h>
#include <stdlib.h>

#ifndef UNIX_PROGRAM
#error "compile with -DUNIX_PROGRAM=\"/path/of/the/linux/program\""
#endif

typedef LONG(CDECL *spawnvp_fn)(char *const argv[], int wait);

int main(void) {
  spawnvp_fn spawnvp =
      (spawnvp_fn)(void *)GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "__wine_unix_spawnvp");
  if (!spawnvp) return 126; /* not wine */
  int argc = 0;
  wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (!wargv) return 125;
  char **argv = calloc((size_t)argc + 1, sizeof(char *));
  if (!argv) return 125;
  argv[0] = UNIX_PROGRAM;
  for (int i = 1; i < argc; i++) {
    int n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
    if (n <= 0 || !(argv[i] = malloc((size_t)n))) return 125;
    WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, argv[i], n, NULL, NULL);
    for (char *c = argv[i]; *c; c++) {
      if (*c == '\\') *c = '/';
    }
  }
  /* The child's exit status (0-255), or an NTSTATUS when it could not be started. */
  LONG status = spawnvp(argv, 1);
  return status == 0 ? 0 : (status > 0 && status < 256 ? (int)status : 127);
}
