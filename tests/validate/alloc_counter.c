/* alloc_counter: an LD_PRELOAD library that counts the heap bytes a process holds.
 *
 * It wraps the C allocator (malloc, calloc, realloc, reallocarray, free, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc) and keeps two numbers: the bytes live now and the
 * highest value they reached since the last report. The validation harness (run_ort.mjs) uses it
 * to measure what one ONNX Runtime session.run() allocates on top of what was held before it.
 *
 * Sizes: each block counts malloc_usable_size() of the real allocation, not the size asked for.
 * A size header would shift every pointer (breaking the alignment promised by posix_memalign and
 * the program's own malloc_usable_size calls, and any free of a block obtained around us); the
 * usable size needs no bookkeeping, is exact on free and realloc, and is what the heap really
 * holds. It overstates a request by at most 24 bytes, or the page rounding of an mmap-ed block
 * (under 4 KiB), which does not matter for tensors.
 *
 * Control: signal CCTX_ALLOC_SIGNAL (default SIGUSR2) appends one line
 *   "<seq> <live> <peak> <allocs> <aligned_live> <aligned_peak> <aligned_lost>"
 * to the file named by CCTX_ALLOC_REPORT (peaks and allocs since the previous line; "aligned":
 * the blocks of the aligned family only, see below), then resets the peaks to the live bytes and
 * the allocation count to 0. One signal does both so that no bytes
 * fall between a reading and a reset. A process signalling itself with kill() gets the handler
 * run on the calling thread before kill() returns (Linux delivers a process-directed signal to
 * the thread group leader first when it does not block it); run_ort.mjs still checks the line
 * count. Node resets every signal's disposition at start-up (PlatformInit), so sigaction() and
 * signal() are wrapped too: changes to the control signal are ignored.
 *
 * Bootstrap: dlsym() itself may call calloc (for dlerror's buffer) before the real functions are
 * known; those requests are served from a static arena, never counted and never freed.
 *
 * Optional: CCTX_ALLOC_TRACE=N writes "+ bytes address" (malloc family), "A bytes address"
 * (aligned) and "- bytes address" lines to stderr for every block of N bytes or more (to find
 * which kernels allocate what, and to pair each free with its allocation).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void* (*malloc_fn)(size_t);
typedef void* (*calloc_fn)(size_t, size_t);
typedef void* (*realloc_fn)(void*, size_t);
typedef void (*free_fn)(void*);
typedef int (*posix_memalign_fn)(void**, size_t, size_t);
typedef void* (*memalign_fn)(size_t, size_t);
typedef void* (*valloc_fn)(size_t);
typedef size_t (*usable_fn)(void*);
typedef int (*sigaction_fn)(int, const struct sigaction*, struct sigaction*);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static free_fn real_free;
static posix_memalign_fn real_posix_memalign;
static memalign_fn real_aligned_alloc;
static memalign_fn real_memalign;
static valloc_fn real_valloc;
static valloc_fn real_pvalloc;
static usable_fn real_usable;
static sigaction_fn real_sigaction;
static signal_fn real_signal;

/* Every block, and the blocks of the aligned family (posix_memalign, aligned_alloc, memalign,
 * valloc, pvalloc). ONNX Runtime's CPU allocator takes every tensor and kernel buffer from
 * posix_memalign (64-byte alignment) while node's ArrayBuffers (the copies of a run's outputs,
 * the inputs) come from malloc/calloc, so the aligned family isolates what the runtime itself
 * allocates for tensors. */
static _Atomic int64_t live_bytes;
static _Atomic int64_t peak_bytes;
static _Atomic int64_t alloc_count;
static _Atomic int64_t aligned_live;
static _Atomic int64_t aligned_peak;
static _Atomic int64_t aligned_lost; /* blocks the table had no room for (reported) */

/* The live aligned blocks, so that free() knows a block's family without a header: a lock-free
 * open-addressing set of pointers (0 = empty, 1 = deleted; an insertion reuses deleted slots on
 * its probe path, so a lookup may stop at the first empty slot). 2^20 slots: 8 MiB of zero pages,
 * touched only where used; a session.run() keeps at most a few thousand aligned blocks live. */
#define TABLE_BITS 20
#define TABLE_SIZE ((size_t)1 << TABLE_BITS)
static _Atomic uintptr_t aligned_table[TABLE_SIZE];

static size_t slot_of(const void* p) {
  return (size_t)((((uintptr_t)p >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - TABLE_BITS));
}

static int table_insert(void* p) {
  size_t i = slot_of(p);
  for (size_t probes = 0; probes < TABLE_SIZE; probes++, i = (i + 1) & (TABLE_SIZE - 1)) {
    uintptr_t v = atomic_load(&aligned_table[i]);
    while (v <= 1) {
      if (atomic_compare_exchange_weak(&aligned_table[i], &v, (uintptr_t)p)) return 1;
    }
  }
  atomic_fetch_add(&aligned_lost, 1);
  return 0;
}

static int table_remove(void* p) {
  size_t i = slot_of(p);
  for (size_t probes = 0; probes < TABLE_SIZE; probes++, i = (i + 1) & (TABLE_SIZE - 1)) {
    uintptr_t v = atomic_load(&aligned_table[i]);
    if (v == (uintptr_t)p) {
      atomic_store(&aligned_table[i], 1);
      return 1;
    }
    if (v == 0) return 0;
  }
  return 0;
}

static void raise_peak(_Atomic int64_t* peak, int64_t now) {
  int64_t seen = atomic_load(peak);
  while (now > seen && !atomic_compare_exchange_weak(peak, &seen, now)) {
  }
}
static _Atomic int64_t report_seq;
static int control_signal = SIGUSR2;
static size_t trace_min; /* 0: no trace */
static char report_path[4096];

/* The bootstrap arena: requests made while dlsym resolves the real functions. */
static _Alignas(64) char boot_arena[16384];
static _Atomic size_t boot_used;
static _Atomic int resolving;
static _Atomic int ready; /* every real_* pointer is set */

static int in_boot(const void* p) {
  return (const char*)p >= boot_arena && (const char*)p < boot_arena + sizeof boot_arena;
}

static void* boot_alloc(size_t n) {
  size_t rounded = (n + 63) & ~(size_t)63;
  size_t at = atomic_fetch_add(&boot_used, rounded);
  if (at + rounded > sizeof boot_arena) return NULL;
  return boot_arena + at; /* static storage: already zero, as calloc wants */
}

/* Async-signal-safe decimal formatting (the handler must not call printf). */
static size_t put_i64(char* out, int64_t v) {
  char tmp[24];
  size_t n = 0, len = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) out[len++] = '-';
  while (n) out[len++] = tmp[--n];
  return len;
}

static void trace(char sign, size_t bytes, const void* p) {
  char line[64];
  size_t len = 0;
  line[len++] = sign;
  line[len++] = ' ';
  len += put_i64(line + len, (int64_t)bytes);
  line[len++] = ' ';
  len += put_i64(line + len, (int64_t)(uintptr_t)p);
  line[len++] = '\n';
  ssize_t ignored = write(2, line, len);
  (void)ignored;
}

static void on_control_signal(int sig) {
  (void)sig;
  int saved_errno = errno;
  int64_t live = atomic_load(&live_bytes);
  int64_t peak = atomic_exchange(&peak_bytes, live);
  int64_t count = atomic_exchange(&alloc_count, 0);
  int64_t alive = atomic_load(&aligned_live);
  int64_t apeak = atomic_exchange(&aligned_peak, alive);
  if (peak < live) peak = live;
  if (apeak < alive) apeak = alive;
  if (report_path[0]) {
    char line[192];
    size_t len = put_i64(line, atomic_fetch_add(&report_seq, 1));
    line[len++] = ' ';
    len += put_i64(line + len, live);
    line[len++] = ' ';
    len += put_i64(line + len, peak);
    line[len++] = ' ';
    len += put_i64(line + len, count);
    line[len++] = ' ';
    len += put_i64(line + len, alive);
    line[len++] = ' ';
    len += put_i64(line + len, apeak);
    line[len++] = ' ';
    len += put_i64(line + len, atomic_load(&aligned_lost));
    line[len++] = '\n';
    int fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ssize_t ignored = write(fd, line, len);
      (void)ignored;
      close(fd);
    }
  }
  errno = saved_errno;
}

/* ISO C has no cast from dlsym's object pointer to a function pointer; POSIX guarantees the
 * representations match, so copy the bytes. */
#define LOOKUP(fn, name)                 \
  do {                                   \
    void* sym_ = dlsym(RTLD_NEXT, name); \
    memcpy(&(fn), &sym_, sizeof sym_);   \
  } while (0)

static void resolve(void) {
  if (atomic_load(&ready) || atomic_load(&resolving)) return;
  atomic_store(&resolving, 1);
  LOOKUP(real_malloc, "malloc");
  LOOKUP(real_calloc, "calloc");
  LOOKUP(real_realloc, "realloc");
  LOOKUP(real_posix_memalign, "posix_memalign");
  LOOKUP(real_aligned_alloc, "aligned_alloc");
  LOOKUP(real_memalign, "memalign");
  LOOKUP(real_valloc, "valloc");
  LOOKUP(real_pvalloc, "pvalloc");
  LOOKUP(real_usable, "malloc_usable_size");
  LOOKUP(real_sigaction, "sigaction");
  LOOKUP(real_signal, "signal");
  LOOKUP(real_free, "free");
  atomic_store(&resolving, 0);
  atomic_store(&ready, 1);
}

__attribute__((constructor)) static void alloc_counter_init(void) {
  resolve();
  const char* path = getenv("CCTX_ALLOC_REPORT");
  if (path && strlen(path) < sizeof report_path) strcpy(report_path, path);
  const char* sig = getenv("CCTX_ALLOC_SIGNAL");
  if (sig && atoi(sig) > 0) control_signal = atoi(sig);
  const char* tr = getenv("CCTX_ALLOC_TRACE");
  if (tr) trace_min = (size_t)strtoull(tr, NULL, 10);
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_control_signal;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  real_sigaction(control_signal, &act, NULL);
}

static void count_alloc(void* p, int aligned) {
  if (!p) return;
  int64_t bytes = (int64_t)real_usable(p);
  raise_peak(&peak_bytes, atomic_fetch_add(&live_bytes, bytes) + bytes);
  atomic_fetch_add(&alloc_count, 1);
  if (aligned && table_insert(p))
    raise_peak(&aligned_peak, atomic_fetch_add(&aligned_live, bytes) + bytes);
  if (trace_min && (size_t)bytes >= trace_min) trace(aligned ? 'A' : '+', (size_t)bytes, p);
}

/* Before the block goes back to the allocator (after, another thread may get the same address). */
static void count_free(void* p) {
  int64_t bytes = (int64_t)real_usable(p);
  atomic_fetch_sub(&live_bytes, bytes);
  if (table_remove(p)) atomic_fetch_sub(&aligned_live, bytes);
  if (trace_min && (size_t)bytes >= trace_min) trace('-', (size_t)bytes, p);
}

void* malloc(size_t n) {
  if (!atomic_load(&ready)) {
    if (atomic_load(&resolving)) return boot_alloc(n);
    resolve();
  }
  void* p = real_malloc(n);
  count_alloc(p, 0);
  return p;
}

void* calloc(size_t count, size_t size) {
  if (!atomic_load(&ready)) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) return NULL;
    if (atomic_load(&resolving)) return boot_alloc(n);
    resolve();
  }
  void* p = real_calloc(count, size);
  count_alloc(p, 0);
  return p;
}

void free(void* p) {
  if (!p || in_boot(p)) return;
  if (!atomic_load(&ready)) resolve();
  if (!atomic_load(&ready))
    return; /* freed while resolving: cannot happen, leak rather than crash */
  count_free(p);
  real_free(p);
}

void* realloc(void* p, size_t n) {
  if (!atomic_load(&ready)) resolve();
  if (in_boot(p)) { /* move a bootstrap block to the real heap; the arena is never reused */
    size_t avail = (size_t)(boot_arena + sizeof boot_arena - (char*)p);
    void* q = malloc(n);
    if (q) memcpy(q, p, n < avail ? n : avail);
    return q;
  }
  if (!p) return malloc(n);
  /* Counted as freed first (p may be handed to another thread once realloc returns), then the
   * result as a new malloc-family block (realloc keeps no alignment promise). */
  int64_t old = (int64_t)real_usable(p);
  int was_aligned = table_remove(p);
  atomic_fetch_sub(&live_bytes, old);
  if (was_aligned) atomic_fetch_sub(&aligned_live, old);
  void* q = real_realloc(p, n);
  if (!q && n != 0) { /* failed: p is unchanged and still live */
    atomic_fetch_add(&live_bytes, old);
    if (was_aligned && table_insert(p)) atomic_fetch_add(&aligned_live, old);
    return NULL;
  }
  count_alloc(q, 0); /* glibc: realloc(p, 0) frees p and returns NULL */
  return q;
}

void* reallocarray(void* p, size_t count, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(p, n);
}

int posix_memalign(void** out, size_t alignment, size_t n) {
  if (!atomic_load(&ready)) resolve();
  int rc = real_posix_memalign(out, alignment, n);
  if (rc == 0) count_alloc(*out, 1);
  return rc;
}

void* aligned_alloc(size_t alignment, size_t n) {
  if (!atomic_load(&ready)) resolve();
  void* p = real_aligned_alloc(alignment, n);
  count_alloc(p, 1);
  return p;
}

void* memalign(size_t alignment, size_t n) {
  if (!atomic_load(&ready)) resolve();
  void* p = real_memalign(alignment, n);
  count_alloc(p, 1);
  return p;
}

void* valloc(size_t n) {
  if (!atomic_load(&ready)) resolve();
  void* p = real_valloc(n);
  count_alloc(p, 1);
  return p;
}

void* pvalloc(size_t n) {
  if (!atomic_load(&ready)) resolve();
  void* p = real_pvalloc(n);
  count_alloc(p, 1);
  return p;
}

size_t malloc_usable_size(void* p) {
  if (!p) return 0;
  if (in_boot(p)) return 64; /* the arena's granule; such blocks are tiny */
  if (!atomic_load(&ready)) resolve();
  return real_usable(p);
}

/* Keep the control signal's handler whatever the program installs. */
int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (!atomic_load(&ready)) resolve();
  if (sig == control_signal && act) return real_sigaction(sig, NULL, old);
  return real_sigaction(sig, act, old);
}

sighandler_t signal(int sig, sighandler_t handler) {
  if (!atomic_load(&ready)) resolve();
  if (sig == control_signal) return SIG_DFL;
  return real_signal(sig, handler);
}
