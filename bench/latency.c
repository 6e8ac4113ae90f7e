/*===- latency.c - End-to-end call latency through the flashrt C API ------===*\
|*                                                                            *|
|* flash-latency ARTIFACT FUNC [--batch=1] [--kv=4096] [--n=2000]             *|
|*               [--warmup=200] [--json]                                      *|
|*                                                                            *|
|* Opens FUNC of ARTIFACT (linked against libflashrt.so, so the mgpu* symbols *|
|* the artifact needs are in the global scope), allocates Q/K/V/O/LSE (and    *|
|* kv_lens / an identity block table for entries that take them) with         *|
|* flashrt_malloc, fills Q/K/V with random values of the kernel's dtype made  *|
|* on the host, and times the wall clock (CLOCK_MONOTONIC) of each of N calls *|
|* after `warmup` untimed ones, in four modes:                                *|
|*   sync  (default; each call waits for its kernel),                         *|
|*   async (flashrt_set_async(1)) + flashrt_synchronize after each call,      *|
|* each with the runtime's pointer checks on and off. Prints median, p90,     *|
|* min and mean per mode in microseconds (one JSON line with --json).         *|
|* Shapes: [B, Hq, Sq, D] and K/V [B, Hkv, S, D] from the ABI's q_shape and   *|
|* kv_shape (-1 dims: B and S from the command line, Sq 1).                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "flashrt.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_shape(const char *abi, const char *key, int64_t out[4]) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":[", key);
  const char *p = strstr(abi, pat);
  if (!p)
    return 0;
  p += strlen(pat);
  for (int i = 0; i < 4; ++i) {
    char *end;
    out[i] = strtoll(p, &end, 10);
    if (end == p)
      return 0;
    p = end;
    while (*p == ',' || *p == ' ')
      ++p;
  }
  return 1;
}

static int abi_true(const char *abi, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":true", key);
  return strstr(abi, pat) != NULL;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return ((rng >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static float normal(void) {
  return (float)(sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform()));
}
static uint16_t to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
static uint16_t to_f16(float f) { /* normal range only: |f| < 8 here */
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax < 0x38800000)
    return (uint16_t)sign; /* tiny: flush to zero */
  uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffff) >> 13);
  uint32_t rest = ax & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return (uint16_t)(sign | h);
}

static void check(int rc, const char *what) {
  if (rc != FLASHRT_OK) {
    fprintf(stderr, "flash-latency: %s: %s (status %d)\n", what,
            flashrt_last_error(), rc);
    exit(2);
  }
}

/* Size errors (an option or ABI shape too large for this machine) exit 1. */
static void too_large(const char *what) {
  fprintf(stderr, "flash-latency: %s\n", what);
  exit(1);
}

/* The product of `rank` sizes, exiting with a message if it overflows or
 * exceeds `limit` elements. */
static size_t checked_numel(const int64_t *sizes, int rank, int64_t limit,
                            const char *what) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i)
    if (sizes[i] < 0 || __builtin_mul_overflow(n, sizes[i], &n) || n > limit) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s is too large (over %lld elements)", what,
               (long long)limit);
      too_large(msg);
    }
  return (size_t)n;
}

/* Half of the physical memory, in bytes: the most the host buffers may use. */
static int64_t host_limit_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  int64_t bytes;
  if (pages <= 0 || page <= 0 ||
      __builtin_mul_overflow((int64_t)pages, (int64_t)page, &bytes))
    return INT64_MAX;
  return bytes / 2;
}

/* A decimal option value in [lo, hi]; exits 2 (usage) otherwise. */
static long parse_long(const char *opt, const char *text, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno == ERANGE || v < lo || v > hi) {
    fprintf(stderr, "flash-latency: %s must be an integer in [%ld, %ld], got "
                    "'%s'\n", opt, lo, hi, text);
    exit(2);
  }
  return v;
}

static void *device_random(size_t n, int f16) {
  uint16_t *h = malloc(n * 2);
  if (!h) {
    too_large("out of host memory");
  }
  for (size_t i = 0; i < n; ++i)
    h[i] = f16 ? to_f16(normal()) : to_bf16(normal());
  void *d;
  check(flashrt_malloc(&d, n * 2), "flashrt_malloc");
  check(flashrt_memcpy_htod(d, h, n * 2), "flashrt_memcpy_htod");
  free(h);
  return d;
}

static void tensor(flashrt_tensor *t, void *data, int rank, const int64_t *sizes,
                   int dtype) {
  memset(t, 0, sizeof *t);
  t->data = data;
  t->rank = rank;
  t->dtype = dtype;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    t->sizes[i] = sizes[i];
    t->strides[i] = stride;
    stride *= sizes[i];
  }
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *artifact = NULL, *func = NULL;
  long batch = 1, kv = 4096, n = 2000, warmup = 200;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    /* kv_lens and block-table entries are i32; 10^7 timed calls is hours. */
    if (!strncmp(a, "--batch=", 8))
      batch = parse_long("--batch", a + 8, 1, INT32_MAX);
    else if (!strncmp(a, "--kv=", 5))
      kv = parse_long("--kv", a + 5, 1, INT32_MAX);
    else if (!strncmp(a, "--n=", 4))
      n = parse_long("--n", a + 4, 1, 10000000);
    else if (!strncmp(a, "--warmup=", 9))
      warmup = parse_long("--warmup", a + 9, 0, 10000000);
    else if (!strcmp(a, "--json"))
      json = 1;
    else if (a[0] == '-') {
      fprintf(stderr, "flash-latency: unknown option %s\n", a);
      return 2;
    } else if (!artifact)
      artifact = a;
    else if (!func)
      func = a;
  }
  if (!artifact || !func || batch < 1 || kv < 1 || n < 1 || warmup < 0) {
    fprintf(stderr, "usage: flash-latency ARTIFACT FUNC [--batch=1] [--kv=4096] "
                    "[--n=2000] [--warmup=200] [--json]\n");
    return 2;
  }

  flashrt_kernel *k = NULL;
  check(flashrt_open(artifact, func, &k), "flashrt_open");
  const char *abi = flashrt_abi(k);
  const char *hd = strstr(abi, "\"head_dim\":");
  int64_t d = hd ? strtoll(hd + 11, NULL, 10) : 128;
  int64_t qs[4] = {-1, 32, 1, d}, ks[4] = {-1, 8, -1, d};
  if (!parse_shape(abi, "q_shape", qs) || !parse_shape(abi, "kv_shape", ks)) {
    int64_t q0[4] = {-1, 32, 1, d}, k0[4] = {-1, 8, -1, d};
    memcpy(qs, q0, sizeof qs);
    memcpy(ks, k0, sizeof ks);
    fprintf(stderr, "flash-latency: no q_shape/kv_shape in the ABI; assuming "
                    "Q [B,32,1,D] and K/V [B,8,S,D]\n");
  }
  int f16 = strstr(abi, "\"dtype\":\"f16\"") != NULL;
  int dtype = f16 ? FLASHRT_DTYPE_F16 : FLASHRT_DTYPE_BF16;
  int has_lse = abi_true(abi, "lse"), has_lens = abi_true(abi, "kv_lens");
  int paged = abi_true(abi, "paged");
  int64_t B = batch, Hq = qs[1], Sq = qs[2] < 0 ? 1 : qs[2], D = qs[3];
  int64_t Hkv = ks[1], Dv = ks[3];
  int64_t page = paged ? ks[2] : 0;
  if (Hq < 1 || Hkv < 1 || Sq < 1 || D < 1 || Dv < 1 || (paged && page < 1))
    too_large("the ABI's q_shape/kv_shape has a size below 1");
  int64_t pps = paged ? (kv + page - 1) / page : 0;
  int64_t pages;
  if (__builtin_mul_overflow(B, pps, &pages) || pages > INT32_MAX)
    too_large("--batch * pages per sequence overflows the i32 block table");
  int64_t q_sizes[4] = {B, Hq, Sq, D}, o_sizes[4] = {B, Hq, Sq, Dv};
  int64_t k_sizes[4] = {B, Hkv, kv, D}, v_sizes[4] = {B, Hkv, kv, Dv};
  if (paged) {
    k_sizes[0] = v_sizes[0] = pages;
    k_sizes[2] = v_sizes[2] = page;
  }
  int64_t l_sizes[3] = {B, Hq, Sq}, lens_sizes[1] = {B}, t_sizes[2] = {B, pps};

  /* Every size overflow-checked; the host staging buffers (2 bytes per
   * element, one tensor at a time) capped by the machine's memory. */
  int64_t limit = host_limit_bytes() / 2;
  size_t nq = checked_numel(q_sizes, 4, limit, "Q [B, Hq, Sq, D]");
  size_t no = checked_numel(o_sizes, 4, limit, "O [B, Hq, Sq, Dv]");
  size_t nk = checked_numel(k_sizes, 4, limit, "K [B, Hkv, S, D]");
  size_t nv = checked_numel(v_sizes, 4, limit, "V [B, Hkv, S, Dv]");
  size_t nl = checked_numel(l_sizes, 3, limit / 2, "LSE [B, Hq, Sq]");
  flashrt_tensor q, kk, v, o, lse, lens, table;
  tensor(&q, device_random(nq, f16), 4, q_sizes, dtype);
  tensor(&kk, device_random(nk, f16), 4, k_sizes, dtype);
  tensor(&v, device_random(nv, f16), 4, v_sizes, dtype);
  void *od, *ld = NULL, *lensd = NULL, *td = NULL;
  check(flashrt_malloc(&od, no * 2), "flashrt_malloc");
  tensor(&o, od, 4, o_sizes, dtype);
  if (has_lse) {
    check(flashrt_malloc(&ld, nl * 4), "flashrt_malloc");
    tensor(&lse, ld, 3, l_sizes, FLASHRT_DTYPE_F32);
  }
  if (has_lens) {
    int32_t *h = malloc((size_t)B * 4);
    if (!h)
      too_large("out of host memory");
    for (int64_t b = 0; b < B; ++b)
      h[b] = (int32_t)kv;
    check(flashrt_malloc(&lensd, (size_t)B * 4), "flashrt_malloc");
    check(flashrt_memcpy_htod(lensd, h, (size_t)B * 4), "flashrt_memcpy_htod");
    free(h);
    tensor(&lens, lensd, 1, lens_sizes, FLASHRT_DTYPE_I32);
  }
  if (paged) {
    int32_t *h = malloc((size_t)pages * 4);
    if (!h)
      too_large("out of host memory");
    for (int64_t i = 0; i < pages; ++i)
      h[i] = (int32_t)i;
    check(flashrt_malloc(&td, (size_t)pages * 4), "flashrt_malloc");
    check(flashrt_memcpy_htod(td, h, (size_t)pages * 4),
          "flashrt_memcpy_htod");
    free(h);
    tensor(&table, td, 2, t_sizes, FLASHRT_DTYPE_I32);
  }
  const flashrt_tensor *lens_p = has_lens ? &lens : NULL;
  const flashrt_tensor *table_p = paged ? &table : NULL;
  const flashrt_tensor *lse_p = has_lse ? &lse : NULL;

  double *t = malloc((size_t)n * sizeof(double));
  if (!t)
    too_large("out of host memory");
  if (!json)
    printf("%s B=%ld S=%ld (Hq %lld, Hkv %lld, Sq %lld, D %lld): %ld calls "
           "after %ld untimed, us per call\n",
           func, batch, kv, (long long)Hq, (long long)Hkv, (long long)Sq,
           (long long)D, n, warmup);
  if (json)
    printf("{\"func\":\"%s\",\"batch\":%ld,\"kv\":%ld,\"n\":%ld,\"warmup\":%ld,"
           "\"modes\":[",
           func, batch, kv, n, warmup);
  int first = 1;
  for (int mode = 0; mode < 2; ++mode) {
    for (int checks = 1; checks >= 0; --checks) {
      flashrt_set_async(mode);
      flashrt_set_pointer_checks(checks);
      for (long i = 0; i < warmup; ++i)
        check(flashrt_attention_kv(k, &q, &kk, &v, lens_p, table_p, &o, lse_p,
                                   NULL),
              "flashrt_attention_kv");
      check(flashrt_synchronize(), "flashrt_synchronize");
      for (long i = 0; i < n; ++i) {
        double t0 = now_us();
        int rc = flashrt_attention_kv(k, &q, &kk, &v, lens_p, table_p, &o,
                                      lse_p, NULL);
        if (mode == 1 && rc == FLASHRT_OK)
          rc = flashrt_synchronize();
        t[i] = now_us() - t0;
        check(rc, "flashrt_attention_kv");
      }
      double sum = 0;
      for (long i = 0; i < n; ++i)
        sum += t[i];
      qsort(t, (size_t)n, sizeof(double), cmp_double);
      double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
      double p90 = t[(long)(0.9 * (double)(n - 1))];
      const char *name = mode ? "async+synchronize" : "sync";
      if (json)
        printf("%s{\"mode\":\"%s\",\"pointer_checks\":%s,\"median_us\":%.3f,"
               "\"p90_us\":%.3f,\"min_us\":%.3f,\"mean_us\":%.3f}",
               first ? "" : ",", name, checks ? "true" : "false", med, p90,
               t[0], sum / (double)n);
      else
        printf("  %-18s pointer checks %-3s  median %8.2f  p90 %8.2f  min "
               "%8.2f  mean %8.2f\n",
               name, checks ? "on" : "off", med, p90, t[0], sum / (double)n);
      first = 0;
    }
  }
  if (json)
    printf("]}\n");
  free(t);
  flashrt_free(q.data);
  flashrt_free(kk.data);
  flashrt_free(v.data);
  flashrt_free(od);
  flashrt_free(ld);
  flashrt_free(lensd);
  flashrt_free(td);
  flashrt_close(k);
  return 0;
}
