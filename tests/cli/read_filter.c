/* A reader of files the abloom command wrote, through the C API as any other program would:
 * read_filter FILE KEY...  opens FILE (mmap, full checksum check) and prints, per KEY, 1 if the
 * filter may contain it and 0 if not. "u64:N" stands for the 8 little-endian bytes of N (what the
 * command's --u64 adds); "hex:..." for the bytes spelled in hex. Exit 2 on an error. */
#include <abloom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int main(int argc, char **argv) {
  abloom_filter *f = NULL;
  int rc, i;
#if defined(_WIN32)
  _setmode(_fileno(stdout), _O_BINARY); /* "1\n", not "1\r\n", as the tests compare bytes */
#endif
  if (argc < 2) {
    fprintf(stderr, "usage: read_filter FILE KEY...\n");
    return 2;
  }
  rc = abloom_open(argv[1], ABLOOM_VERIFY_CHECKSUM, &f);
  if (rc != ABLOOM_OK) {
    fprintf(stderr, "read_filter: %s: %s\n", argv[1], abloom_strerror(rc));
    return 2;
  }
  for (i = 2; i < argc; ++i) {
    unsigned char key[4096];
    size_t len = 0;
    const char *arg = argv[i];
    if (strncmp(arg, "u64:", 4) == 0) {
      unsigned long long v = strtoull(arg + 4, NULL, 10);
      int b;
      for (b = 0; b < 8; ++b) key[len++] = (unsigned char)(v >> (8 * b));
    } else if (strncmp(arg, "hex:", 4) == 0) {
      const char *h = arg + 4;
      while (h[0] != '\0' && h[1] != '\0' && len < sizeof key) {
        key[len++] = (unsigned char)(hex_digit(h[0]) * 16 + hex_digit(h[1]));
        h += 2;
      }
    } else {
      len = strlen(arg);
      if (len > sizeof key) len = sizeof key;
      memcpy(key, arg, len);
    }
    rc = abloom_test(f, key, len);
    if (rc < 0) {
      fprintf(stderr, "read_filter: %s\n", abloom_strerror(rc));
      abloom_free(f);
      return 2;
    }
    printf("%d\n", rc);
  }
  abloom_free(f);
  return 0;
}
