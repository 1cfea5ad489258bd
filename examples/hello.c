/* hello.c:  cc hello.c $(pkg-config --cflags --libs abloom) -o hello */
#include <abloom.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  abloom_filter *f;
  int rc = abloom_new(1000000, 0.01, &f); /* 1M keys at 1% */
  if (rc != ABLOOM_OK) {
    fprintf(stderr, "%s\n", abloom_strerror(rc));
    return 1;
  }

  abloom_add(f, "alice:bob", strlen("alice:bob"));
  printf("%d %d\n", abloom_test(f, "alice:bob", 9), /* 1: maybe present   */
         abloom_test(f, "carol:dan", 9));           /* 0: definitely absent */
  abloom_free(f);
  return 0;
}
