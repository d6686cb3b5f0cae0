/* alloc_counter_test: runs under LD_PRELOAD=libcctx_alloc_counter.so and checks that the counter
 * sees a known allocation pattern exactly: every wrapped function, the live bytes going back to
 * where they were, the peak of a known sequence, the control signal surviving a program's
 * sigaction, and concurrent threads. Between two readings the test allocates nothing but what it
 * checks (no stdio: the readings are parsed from a static buffer with open/read).
 * Exit 0 when every check holds; each failure is printed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* report_path;
static int failures;

struct reading {
  long long seq, live, peak, allocs, aligned_live, aligned_peak, aligned_lost;
};

/* The last line of the report file: "seq live peak allocs". */
static struct reading read_counter(void) {
  static char buf[1 << 16];
  struct reading r = {-1, -1, -1, -1, -1, -1, -1};
  raise(SIGUSR2);
  int fd = open(report_path, O_RDONLY);
  if (fd < 0) return r;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return r;
  buf[n] = 0;
  char* end = buf + n - 1; /* the final '\n' */
  char* line = end;
  while (line > buf && line[-1] != '\n') line--;
  if (sscanf(line, "%lld %lld %lld %lld %lld %lld %lld", &r.seq, &r.live, &r.peak, &r.allocs,
             &r.aligned_live, &r.aligned_peak, &r.aligned_lost) != 7)
    r.seq = -1;
  return r;
}

#define CHECK(cond, ...)                           \
  do {                                             \
    if (!(cond)) {                                 \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                \
      fputc('\n', stderr);                         \
      failures++;                                  \
    }                                              \
  } while (0)

/* A block's usable size: at least what was asked, and not more than glibc's rounding (16-byte
 * granules for heap chunks, whole pages for mmap-ed ones). */
static void check_usable(void* p, size_t asked, const char* what) {
  size_t usable = malloc_usable_size(p);
  CHECK(usable >= asked && usable <= asked + 4096 + 32, "%s: usable %zu for %zu bytes", what,
        usable, asked);
}

static void every_function(void) {
  struct reading r0 = read_counter();
  long long expect = 0;
  void* a = malloc(100000);
  check_usable(a, 100000, "malloc");
  expect += (long long)malloc_usable_size(a);
  char* b = calloc(1000, 1000);
  check_usable(b, 1000000, "calloc");
  CHECK(b[0] == 0 && b[999999] == 0, "calloc memory is not zero");
  expect += (long long)malloc_usable_size(b);
  void* c = NULL;
  CHECK(posix_memalign(&c, 64, 5000000) == 0 && ((uintptr_t)c & 63) == 0, "posix_memalign");
  expect += (long long)malloc_usable_size(c);
  void* d = aligned_alloc(4096, 8192);
  CHECK(d && ((uintptr_t)d & 4095) == 0, "aligned_alloc");
  expect += (long long)malloc_usable_size(d);
  void* e = memalign(256, 300000);
  CHECK(e && ((uintptr_t)e & 255) == 0, "memalign");
  expect += (long long)malloc_usable_size(e);
  void* f = valloc(10000);
  void* g = pvalloc(10000);
  CHECK(f && g && ((uintptr_t)f & 4095) == 0, "valloc/pvalloc");
  expect += (long long)(malloc_usable_size(f) + malloc_usable_size(g));
  long long aligned =
      (long long)(malloc_usable_size(c) + malloc_usable_size(d) + malloc_usable_size(e) +
                  malloc_usable_size(f) + malloc_usable_size(g));
  struct reading r1 = read_counter();
  CHECK(r1.aligned_live - r0.aligned_live == aligned, "aligned live grew by %lld, want %lld",
        r1.aligned_live - r0.aligned_live, aligned);
  CHECK(r1.live - r0.live == expect, "live grew by %lld, want %lld", r1.live - r0.live, expect);
  CHECK(r1.peak == r1.live, "peak %lld, want live %lld", r1.peak, r1.live);
  CHECK(r1.allocs == 7, "%lld allocations counted, want 7", r1.allocs);

  /* realloc: grow (moves), shrink, from NULL, to 0 (glibc frees); reallocarray. */
  long long before = (long long)malloc_usable_size(a);
  a = realloc(a, 3000000);
  check_usable(a, 3000000, "realloc grow");
  expect += (long long)malloc_usable_size(a) - before;
  before = (long long)malloc_usable_size(a);
  a = realloc(a, 1000);
  expect += (long long)malloc_usable_size(a) - before;
  void* h = realloc(NULL, 70000);
  expect += (long long)malloc_usable_size(h);
  void* i = malloc(5000);
  CHECK(realloc(i, 0) == NULL, "realloc(p, 0) did not free");
  void* j = reallocarray(NULL, 1000, 24);
  check_usable(j, 24000, "reallocarray");
  expect += (long long)malloc_usable_size(j);
  volatile size_t huge = SIZE_MAX / 2; /* volatile: GCC refuses a constant overflowing product */
  CHECK(reallocarray(NULL, huge, 3) == NULL, "reallocarray overflow not refused");
  /* realloc of an aligned block: the result belongs to the malloc family. */
  before = (long long)malloc_usable_size(d);
  d = realloc(d, 200000);
  expect += (long long)malloc_usable_size(d) - before;
  aligned -= before;
  struct reading r2 = read_counter();
  CHECK(r2.aligned_live - r0.aligned_live == aligned, "after realloc: aligned live %lld, want %lld",
        r2.aligned_live - r0.aligned_live, aligned);
  CHECK(r2.live - r0.live == expect, "after realloc: live grew by %lld, want %lld",
        r2.live - r0.live, expect);

  free(a), free(b), free(c), free(d), free(e), free(f), free(g), free(h), free(j);
  free(NULL);
  struct reading r3 = read_counter();
  CHECK(r3.live == r0.live, "after freeing everything: live %lld, want %lld", r3.live, r0.live);
  CHECK(r3.aligned_live == r0.aligned_live && r3.aligned_lost == 0, "aligned live %lld, want %lld",
        r3.aligned_live, r0.aligned_live);
}

/* A known sequence: the peak is reached with A and B live, not later. */
static void peak_of_sequence(void) {
  struct reading r0 = read_counter();
  void* a = NULL;
  CHECK(posix_memalign(&a, 64, 1 << 20) == 0, "posix_memalign");
  void* b = malloc(2 << 20);
  long long ab = (long long)(malloc_usable_size(a) + malloc_usable_size(b));
  long long a_only = (long long)malloc_usable_size(a);
  free(a);
  void* c = malloc(512 << 10);
  free(b);
  free(c);
  struct reading r1 = read_counter();
  CHECK(r1.peak - r0.live == ab, "peak above start %lld, want %lld", r1.peak - r0.live, ab);
  CHECK(r1.aligned_peak - r0.aligned_live == a_only, "aligned peak above start %lld, want %lld",
        r1.aligned_peak - r0.aligned_live, a_only);
  CHECK(r1.live == r0.live, "live %lld, want %lld", r1.live, r0.live);
  /* The reading reset the peak: nothing allocated since, so the next peak is the live bytes. */
  struct reading r2 = read_counter();
  CHECK(r2.peak == r2.live && r2.allocs == 0, "peak not reset: %lld (live %lld)", r2.peak, r2.live);
}

/* Node resets every signal at start-up; the counter must keep its handler. */
static void signal_survives(void) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  struct reading r0 = read_counter();
  sigaction(SIGUSR2, &dfl, NULL);
  signal(SIGUSR2, SIG_DFL);
  struct reading r1 = read_counter(); /* would kill the process without the wrappers */
  CHECK(r1.seq == r0.seq + 1, "no new reading after the program reset SIGUSR2");
}

static void* churn(void* arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  void* held[64] = {0};
  for (int k = 0; k < 20000; k++) {
    int slot = (int)(rand_r(&seed) % 64);
    free(held[slot]);
    size_t n = (size_t)(rand_r(&seed) % 20000) + 1;
    if (rand_r(&seed) & 1) /* half of them aligned: the pointer set is shared by the threads */
      held[slot] = posix_memalign(&held[slot], 64, n) == 0 ? held[slot] : NULL;
    else
      held[slot] = malloc(n);
  }
  for (int k = 0; k < 64; k++) free(held[k]);
  return NULL;
}

static void threads(void) {
  pthread_t t[4];
  for (int k = 0; k < 4; k++) pthread_create(&t[k], NULL, churn, (void*)(uintptr_t)(k + 1));
  for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
  /* pthread_create's own allocations (thread stacks are mmap-ed, not malloc-ed; the TLS and
   * thread descriptors are cached by glibc) are read before and after a second round. */
  struct reading r0 = read_counter();
  for (int k = 0; k < 4; k++) pthread_create(&t[k], NULL, churn, (void*)(uintptr_t)(k + 11));
  for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
  struct reading r1 = read_counter();
  CHECK(r1.live == r0.live, "4 threads x 20000 malloc/free: live moved by %lld", r1.live - r0.live);
  CHECK(r1.allocs >= 4 * 20000, "only %lld allocations counted", r1.allocs);
  CHECK(r1.aligned_live == r0.aligned_live && r1.aligned_lost == 0, "aligned live moved by %lld",
        r1.aligned_live - r0.aligned_live);
  CHECK(r1.aligned_peak > r0.aligned_live, "no aligned peak from the threads");
}

int main(void) {
  report_path = getenv("CCTX_ALLOC_REPORT");
  if (!report_path || !getenv("LD_PRELOAD")) {
    fprintf(stderr, "run with LD_PRELOAD=libcctx_alloc_counter.so and CCTX_ALLOC_REPORT\n");
    return 2;
  }
  unlink(report_path);
  struct reading r = read_counter();
  if (r.seq != 0) {
    fprintf(stderr, "FAIL: no reading in %s: is the counter preloaded?\n", report_path);
    return 1;
  }
  every_function();
  peak_of_sequence();
  signal_survives();
  threads();
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("alloc_counter: every check passed\n");
  return failures ? 1 : 0;
}
