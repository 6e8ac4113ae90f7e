/*===- FakeArtifact.c - A stand-in for a compiled attention artifact ------===*\
|*                                                                            *|
|* Has the shape of what the compiler emits for a GPU (see flashrt.h): a      *|
|* priority-123 constructor loading a GPU image through mgpuModuleLoad, a     *|
|* destructor unloading it, `_mlir_ciface_<func>` entries taking memref       *|
|* descriptors that get their kernel, create a stream, launch, synchronise    *|
|* and destroy the stream, and `<func>_flash_abi` records. The mgpu* symbols  *|
|* stay undefined, resolved from libflashrt.so at dlopen, as in the real one. *|
|*                                                                            *|
|* The "kernel" is computed here on the host, on the descriptors' memory,     *|
|* which under the fake driver (FakeCuda.cpp) is host memory: so flash-run    *|
|* can be tested end to end without a GPU. The backward entries (fake_bwd*)   *|
|* compute their gradients as FlashAttention-2's kernels do, from the O and   *|
|* LSE they are given, with P and dS rounded to the dtype and dQ summed in a  *|
|* workspace the entry allocates and zeroes. Built twice: with the GPU module,*|
|* and with -DFAKE_NO_GPU_MODULE (no constructor), which opens without any    *|
|* driver and lets the tests reach the argument checks.                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} MemRef4;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} MemRef3;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1;

void *mgpuModuleLoad(const void *data, int64_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuLaunchKernel(void *f, int64_t gx, int64_t gy, int64_t gz, int64_t bx,
                      int64_t by, int64_t bz, int32_t smem, void *stream,
                      void **params, void **extra, int64_t paramsCount);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, _Bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);

/* Knobs and observations for the tests (looked up with dlsym). */
int fake_calls;
int32_t fake_smem_bytes;
const char *fake_kernel_name = "fake_kernel";
/* Scratch bytes each call allocates around its launch, as a split-KV entry
 * does (gpu.alloc / gpu.dealloc on the call's stream); 0: none. */
uint64_t fake_scratch_bytes;
void *fake_last_scratch;
MemRef4 fake_last_q, fake_last_o;
MemRef1 fake_last_lens;
MemRef2 fake_last_table;
MemRef2 fake_last_doc;
MemRef1 fake_last_bias;
MemRef4 fake_last_hint;
/* The last backward call's dQ, dK and dV descriptors and its dQ workspace. */
MemRef4 fake_last_dq, fake_last_dk, fake_last_dv;
void *fake_last_workspace;

const char fake_flash_abi[] =
    "{\"func\":\"fake\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],\"softcap\":0.0,"
    "\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\",\"block_m\":128,"
    "\"block_n\":64,\"warps\":4,\"stages\":2,\"smem_bytes\":49152}";
const char fake_f16_flash_abi[] =
    "{\"func\":\"fake_f16\",\"dtype\":\"f16\",\"head_dim\":32,"
    "\"head_dim_v\":64,\"causal\":false,\"window\":[16, 4],"
    "\"softcap\":30.0,\"scale\":0.2,\"lse\":false,\"arch\":\"sm_90\"}";
/* KV-cache entries, as scripts/gen-decode-variants.py makes them: static
 * heads (q_shape / kv_shape), i32 kv_lens after V, a block table after it
 * (paged: K/V are [pages, Hkv, 16, 64] pools). */
const char fake_kv_flash_abi[] =
    "{\"func\":\"fake_kv\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],\"softcap\":0.0,"
    "\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\",\"kv_lens\":true,"
    "\"paged\":false,\"split_kv\":true,\"q_shape\":[-1,4,-1,64],"
    "\"kv_shape\":[-1,2,-1,64]}";
const char fake_paged_flash_abi[] =
    "{\"func\":\"fake_paged\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],\"softcap\":0.0,"
    "\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\",\"kv_lens\":true,"
    "\"paged\":true,\"split_kv\":true,\"q_shape\":[-1,4,-1,64],"
    "\"kv_shape\":[-1,2,16,64]}";

/* An entry with captures (a mask_mod's document ids, a score_mod's bias
 * table), as flash-to-gpu records them: the i32 [B, S] ids (contiguous)
 * and an f32 [4] per-head table after V, in argument order. */
const char fake_cap_flash_abi[] =
    "{\"func\":\"fake_cap\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":false,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\","
    "\"captures\":[{\"dtype\":\"i32\",\"rank\":2,\"arg\":3,"
    "\"shape\":[-1,-1],\"strides\":[-1,1],\"contiguous\":true},"
    "{\"dtype\":\"f32\",\"rank\":1,\"arg\":4,\"shape\":[4],"
    "\"strides\":[-1],\"contiguous\":false}],\"num_args\":7}";
/* ALiBi: f32 [B, 4] slopes after V (the op's alibi operand, a capture in
 * the record), causal, GQA 4/2. */
const char fake_alibi_flash_abi[] =
    "{\"func\":\"fake_alibi\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\","
    "\"q_shape\":[-1,4,-1,64],\"kv_shape\":[-1,2,-1,64],"
    "\"captures\":[{\"dtype\":\"f32\",\"rank\":2,\"arg\":3,"
    "\"shape\":[-1,4],\"strides\":[4,1],\"contiguous\":true}],"
    "\"num_args\":6}";

/* A document mask with a block_mask hint (as flashmlir's variants write
 * it): the hint i32 [B or 1, Hq or 1, R, 4] is the argument after V and the
 * first capture, rows 16; the document ids i32 [B, S] follow. */
const char fake_bm_flash_abi[] =
    "{\"func\":\"fake_bm\",\"dtype\":\"bf16\",\"head_dim\":64,"
    "\"head_dim_v\":64,\"causal\":false,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"lse\":true,\"arch\":\"sm_90\","
    "\"block_mask\":{\"arg\":3,\"rows\":16},"
    "\"captures\":[{\"dtype\":\"i32\",\"rank\":4,\"arg\":3,"
    "\"shape\":[-1,-1,-1,4],\"strides\":[-1,-1,4,1],\"contiguous\":true},"
    "{\"dtype\":\"i32\",\"rank\":2,\"arg\":4,\"shape\":[-1,-1],"
    "\"strides\":[-1,1],\"contiguous\":true}],\"num_args\":7}";

/* Backward entries, as flash-to-gpu records flash.attention_backward:
 * "kind" and the role of each argument in "args"; the forward-only keys are
 * false. fake_bwd: causal bf16, D = Dv = 64. */
const char fake_bwd_flash_abi[] =
    "{\"func\":\"fake_bwd\",\"kind\":\"backward\",\"dtype\":\"bf16\","
    "\"head_dim\":64,\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"lse\":false,\"kv_lens\":false,"
    "\"paged\":false,\"split_kv\":false,\"arch\":\"sm_90\",\"block_m\":64,"
    "\"block_n\":64,\"warps\":4,\"stages\":2,\"smem_bytes\":49152,"
    "\"kernel\":\"fake_bwd_kv\","
    "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\",\"dq\",\"dk\",\"dv\"],"
    "\"num_args\":9,\"kernels\":["
    "{\"kernel\":\"fake_bwd_delta\",\"role\":\"delta\",\"threads\":128,"
    "\"smem_bytes\":0},"
    "{\"kernel\":\"fake_bwd_kv\",\"role\":\"backward_kv\",\"threads\":128,"
    "\"smem_bytes\":49152},"
    "{\"kernel\":\"fake_bwd_dq\",\"role\":\"backward_dq\",\"threads\":128,"
    "\"smem_bytes\":0}]}";
/* f16, D = 32, Dv = 64, window [16, 4], softcap 30, scale 0.2. */
const char fake_bwd_f16_flash_abi[] =
    "{\"func\":\"fake_bwd_f16\",\"kind\":\"backward\",\"dtype\":\"f16\","
    "\"head_dim\":32,\"head_dim_v\":64,\"causal\":false,\"window\":[16, 4],"
    "\"softcap\":30.0,\"scale\":0.2,\"lse\":false,\"kv_lens\":false,"
    "\"paged\":false,\"split_kv\":false,\"arch\":\"sm_90\","
    "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\",\"dq\",\"dk\",\"dv\"],"
    "\"num_args\":9}";
/* ALiBi: the f32 [B, 4] slopes between dO and dQ (a capture record, role
 * "alibi"), causal, GQA 4/2. */
const char fake_bwd_alibi_flash_abi[] =
    "{\"func\":\"fake_bwd_alibi\",\"kind\":\"backward\",\"dtype\":\"bf16\","
    "\"head_dim\":64,\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"lse\":false,\"kv_lens\":false,"
    "\"paged\":false,\"split_kv\":false,\"arch\":\"sm_90\","
    "\"q_shape\":[-1,4,-1,64],\"kv_shape\":[-1,2,-1,64],"
    "\"captures\":[{\"dtype\":\"f32\",\"rank\":2,\"arg\":6,"
    "\"shape\":[-1,4],\"strides\":[4,1],\"contiguous\":true}],"
    "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\",\"alibi\",\"dq\","
    "\"dk\",\"dv\"],\"num_args\":10}";

/* fake_bwd with its arguments in another order: the runtime must follow
 * "args", not assume the usual order. */
const char fake_bwd_perm_flash_abi[] =
    "{\"func\":\"fake_bwd_perm\",\"kind\":\"backward\",\"dtype\":\"bf16\","
    "\"head_dim\":64,\"head_dim_v\":64,\"causal\":true,\"window\":[-1,-1],"
    "\"softcap\":0.0,\"scale\":0.125,\"arch\":\"sm_90\","
    "\"args\":[\"dk\",\"do\",\"q\",\"dv\",\"lse\",\"k\",\"dq\",\"o\",\"v\"]}";
/* A kind of entry this runtime does not know. */
const char fake_kind_flash_abi[] =
    "{\"func\":\"fake_kind\",\"kind\":\"sparse\",\"dtype\":\"bf16\","
    "\"head_dim\":64,\"arch\":\"sm_90\"}";

static void *module;

#ifndef FAKE_NO_GPU_MODULE
static const char image[] = "FAKECUBIN";

__attribute__((constructor(123))) static void fake_load(void) {
  module = mgpuModuleLoad(image, sizeof(image));
}
__attribute__((destructor(123))) static void fake_unload(void) {
  mgpuModuleUnload(module);
}
#endif

static float bf16ToFloat(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static uint16_t floatToBf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static float f16ToFloat(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0    ? ldexpf((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : ldexpf((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

static uint16_t floatToF16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax >= 0x7f800000)
    return (uint16_t)(sign | (ax > 0x7f800000 ? 0x7e00 : 0x7c00));
  if (ax >= 0x477ff000) /* >= 65520 rounds to infinity */
    return (uint16_t)(sign | 0x7c00);
  if (ax < 0x38800000) { /* below 2^-14: subnormal, units of 2^-24 */
    float v;
    memcpy(&v, &ax, 4);
    return (uint16_t)(sign | (uint32_t)nearbyintf(v * 16777216.0f));
  }
  uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffff) >> 13);
  uint32_t rest = ax & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return (uint16_t)(sign | h);
}

typedef struct {
  int f16, causal;
  int64_t left, right;
  float softcap, scale;
} Semantics;

static float load(const MemRef4 *m, int f16, int64_t b, int64_t h, int64_t s,
                  int64_t d) {
  const uint16_t *p = (const uint16_t *)m->aligned + m->offset;
  uint16_t x = p[b * m->strides[0] + h * m->strides[1] + s * m->strides[2] +
                 d * m->strides[3]];
  return f16 ? f16ToFloat(x) : bf16ToFloat(x);
}

/* Optional serving operands: per-sequence lengths and a block table.
 * $FAKE_KV_BUG plants a bug for flash-run-gpu to catch: "lens" reads every
 * key of K (ignores kv_lens), "table" reads pages in batch order (ignores
 * the block table). */
typedef struct {
  const MemRef1 *lens;
  const MemRef2 *table;
} Cache;

static int kvBug(const char *which) {
  const char *bug = getenv("FAKE_KV_BUG");
  return bug && strcmp(bug, which) == 0;
}

/* Optional capture: document ids [B, S]; key j is visible to query i only
 * in the same document (FlexAttention's document mask). */
static const MemRef2 *docIds;

/* Optional captures of fake_cap's score_mod and fake_alibi: a per-head bias
 * [4] added to the scores, ALiBi slopes [B, Hq]. */
static const MemRef1 *biasTable;
static const MemRef2 *alibiSlopes;

static float scoreShift(int64_t b, int64_t h, int64_t diag, int64_t j) {
  float shift = 0;
  if (biasTable)
    shift += ((const float *)biasTable->aligned +
              biasTable->offset)[h * biasTable->strides[0]];
  if (alibiSlopes)
    shift -= ((const float *)alibiSlopes->aligned +
              alibiSlopes->offset)[b * alibiSlopes->strides[0] +
                                   h * alibiSlopes->strides[1]] *
             (float)llabs(diag - j);
  return shift;
}

/* Optional capture of fake_bm: the block_mask hint, used as the GPU kernels
 * use it (keys outside the visible interval skipped, no mask on keys inside
 * the full one), so a hint that breaks its promise changes the result. */
static const MemRef4 *blockHint;
enum { kHintRows = 16 };

/* -1: the hint hides key j from query i; 1: it claims j visible; 0: the
 * mask decides. */
static int hintSays(int64_t b, int64_t h, int64_t i, int64_t j) {
  if (!blockHint)
    return 0;
  const MemRef4 *m = blockHint;
  const int32_t *e = (const int32_t *)m->aligned + m->offset +
                     (m->sizes[0] == 1 ? 0 : b) * m->strides[0] +
                     (m->sizes[1] == 1 ? 0 : h) * m->strides[1] +
                     (i / kHintRows) * m->strides[2];
  int32_t vlo = e[0], vhi = e[m->strides[3]], flo = e[2 * m->strides[3]],
          fhi = e[3 * m->strides[3]];
  if (j < vlo || j >= vhi)
    return -1;
  return j >= flo && j < fhi ? 1 : 0;
}

static int sameDoc(int64_t b, int64_t i, int64_t j) {
  if (!docIds)
    return 1;
  const int32_t *d = (const int32_t *)docIds->aligned + docIds->offset;
  return d[b * docIds->strides[0] + i * docIds->strides[1]] ==
         d[b * docIds->strides[0] + j * docIds->strides[1]];
}

/* Key j of sequence b: through the block table when paged. */
static float loadKey(const MemRef4 *m, const Cache *c, int f16, int64_t b,
                     int64_t h, int64_t j, int64_t d) {
  if (!c || !c->table)
    return load(m, f16, b, h, j, d);
  int64_t ps = m->sizes[2];
  const int32_t *t = (const int32_t *)c->table->aligned + c->table->offset;
  int64_t page = t[b * c->table->strides[0] + (j / ps) * c->table->strides[1]];
  if (kvBug("table"))
    page = b * c->table->sizes[1] + j / ps;
  return load(m, f16, page, h, j % ps, d);
}

/* Attention in float, as the op defines it (causal and windows aligned to
 * the bottom-right corner; a row that sees no key gives O = 0, LSE = -inf).
 */
static void computeCache(const Semantics *sem, const Cache *c, MemRef4 *q,
                         MemRef4 *k, MemRef4 *v, MemRef4 *o, MemRef3 *lse) {
  int64_t B = q->sizes[0], Hq = q->sizes[1], Sq = q->sizes[2];
  int64_t D = q->sizes[3], Hkv = k->sizes[1];
  int64_t Dv = v->sizes[3];
  float p[4096], acc[256];
  if (k->sizes[2] > 4096 || Dv > 256)
    return; /* Leaves O poisoned: the test sees a failure. */
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        int64_t Sk = k->sizes[2];
        if (c && c->lens && !kvBug("lens"))
          Sk = ((const int32_t *)c->lens->aligned +
                c->lens->offset)[b * c->lens->strides[0]];
        if (Sk > 4096)
          return;
        int64_t offset = Sk - Sq;
        int64_t hk = h / (Hq / Hkv);
        float m = -INFINITY, l = 0;
        for (int64_t j = 0; j < Sk; ++j) {
          int visible = (!sem->causal || j <= i + offset) &&
                        (sem->left < 0 || j >= i + offset - sem->left) &&
                        (sem->right < 0 || j <= i + offset + sem->right) &&
                        (hintSays(b, h, i, j) == 1 ||
                         (hintSays(b, h, i, j) == 0 && sameDoc(b, i, j)));
          float s = -INFINITY;
          if (visible) {
            s = 0;
            for (int64_t d = 0; d < D; ++d)
              s += load(q, sem->f16, b, h, i, d) *
                   loadKey(k, c, sem->f16, b, hk, j, d);
            s *= sem->scale;
            if (sem->softcap > 0)
              s = sem->softcap * tanhf(s / sem->softcap);
            s += scoreShift(b, h, i + offset, j);
          }
          p[j] = s;
          m = fmaxf(m, s);
        }
        for (int64_t d = 0; d < Dv; ++d)
          acc[d] = 0;
        if (m != -INFINITY)
          for (int64_t j = 0; j < Sk; ++j) {
            float e = expf(p[j] - m);
            l += e;
            for (int64_t d = 0; d < Dv; ++d)
              acc[d] += e * loadKey(v, c, sem->f16, b, hk, j, d);
          }
        uint16_t *out = (uint16_t *)o->aligned + o->offset;
        for (int64_t d = 0; d < Dv; ++d) {
          float x = l > 0 ? acc[d] / l : 0.0f;
          out[b * o->strides[0] + h * o->strides[1] + i * o->strides[2] +
              d * o->strides[3]] = sem->f16 ? floatToF16(x) : floatToBf16(x);
        }
        if (lse) {
          float *out = (float *)lse->aligned + lse->offset;
          out[b * lse->strides[0] + h * lse->strides[1] + i * lse->strides[2]] =
              l > 0 ? m + logf(l) : -INFINITY;
        }
      }
}

static void compute(const Semantics *sem, MemRef4 *q, MemRef4 *k, MemRef4 *v,
                    MemRef4 *o, MemRef3 *lse) {
  computeCache(sem, 0, q, k, v, o, lse);
}

/* What the host code of a lowered gpu.launch_func does. */
static void launch(MemRef4 *q, MemRef4 *o) {
  void *f = mgpuModuleGetFunction(module, fake_kernel_name);
  void *stream = mgpuStreamCreate();
  void *scratch = 0;
  if (fake_scratch_bytes)
    fake_last_scratch = scratch = mgpuMemAlloc(fake_scratch_bytes, stream, 0);
  void *params[] = {&q->aligned, &o->aligned, &scratch};
  mgpuLaunchKernel(f, (q->sizes[2] + 127) / 128, q->sizes[1], q->sizes[0], 128,
                   1, 1, fake_smem_bytes, stream, params, 0, 3);
  if (scratch)
    mgpuMemFree(scratch, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

void _mlir_ciface_fake(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *o,
                       MemRef3 *lse) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  if (module)
    compute(&sem, q, k, v, o, lse);
  launch(q, o);
}

void _mlir_ciface_fake_f16(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *o) {
  static const Semantics sem = {1, 0, 16, 4, 30.0f, 0.2f};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  if (module)
    compute(&sem, q, k, v, o, 0);
  launch(q, o);
}

void _mlir_ciface_fake_kv(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef1 *lens,
                          MemRef4 *o, MemRef3 *lse) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  Cache c = {lens, 0};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  fake_last_lens = *lens;
  if (module)
    computeCache(&sem, &c, q, k, v, o, lse);
  launch(q, o);
}

void _mlir_ciface_fake_paged(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef1 *lens,
                             MemRef2 *table, MemRef4 *o, MemRef3 *lse) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  Cache c = {lens, table};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  fake_last_lens = *lens;
  fake_last_table = *table;
  if (module)
    computeCache(&sem, &c, q, k, v, o, lse);
  launch(q, o);
}

void _mlir_ciface_fake_cap(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef2 *doc,
                           MemRef1 *bias, MemRef4 *o, MemRef3 *lse) {
  static const Semantics sem = {0, 0, -1, -1, 0.0f, 0.125f};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  fake_last_doc = *doc;
  fake_last_bias = *bias;
  docIds = doc;
  biasTable = bias;
  if (module)
    compute(&sem, q, k, v, o, lse);
  docIds = 0;
  biasTable = 0;
  launch(q, o);
}

void _mlir_ciface_fake_alibi(MemRef4 *q, MemRef4 *k, MemRef4 *v,
                             MemRef2 *slopes, MemRef4 *o, MemRef3 *lse) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  alibiSlopes = slopes;
  if (module)
    compute(&sem, q, k, v, o, lse);
  alibiSlopes = 0;
  launch(q, o);
}

void _mlir_ciface_fake_bm(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *hint,
                          MemRef2 *doc, MemRef4 *o, MemRef3 *lse) {
  static const Semantics sem = {0, 0, -1, -1, 0.0f, 0.125f};
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  fake_last_hint = *hint;
  fake_last_doc = *doc;
  blockHint = hint;
  docIds = doc;
  if (module)
    compute(&sem, q, k, v, o, lse);
  blockHint = 0;
  docIds = 0;
  launch(q, o);
}

/*===----------------------------------------------------------------------===*\
|* Backward entries                                                           *|
\*===----------------------------------------------------------------------===*/

static void store(const MemRef4 *m, int f16, int64_t b, int64_t h, int64_t s,
                  int64_t d, float x) {
  uint16_t *p = (uint16_t *)m->aligned + m->offset;
  p[b * m->strides[0] + h * m->strides[1] + s * m->strides[2] +
    d * m->strides[3]] = f16 ? floatToF16(x) : floatToBf16(x);
}

static float roundTo(int f16, float x) {
  return f16 ? f16ToFloat(floatToF16(x)) : bf16ToFloat(floatToBf16(x));
}

/* $FAKE_BWD_BUG plants a bug for flash-run-gpu to catch: "scale" leaves the
 * softmax scale out of dK, "gqa" gives each KV head the gradient of its
 * group's first query head only, "memset" skips zeroing the dQ workspace. */
static int bwdBug(const char *which) {
  const char *bug = getenv("FAKE_BWD_BUG");
  return bug && strcmp(bug, which) == 0;
}

/* One launch of the fake module, as the lowered host code makes it. */
static void launchBwd(const char *name, int64_t gx, int64_t gy, int64_t gz,
                      void *stream, void *arg) {
  void *f = mgpuModuleGetFunction(module, name);
  void *params[] = {&arg};
  mgpuLaunchKernel(f, gx, gy, gz, 128, 1, 1, 0, stream, params, 0, 1);
}

/* FlashAttention-2's backward on the host: a delta kernel (D_i = dO_i . O_i
 * from the O given), a kernel per KV block (P_ij = exp(s_ij - LSE_i) from
 * the LSE given, dV += P dO, dS = P (dP - D) f'(x), dK += dS scale q,
 * dQ_acc += dS scale k with the workspace zeroed first) and one that rounds
 * dQ_acc into dQ. P and dS are rounded to the dtype before their products,
 * as the tensor-core kernels do. */
static void backward(const Semantics *sem, MemRef4 *q, MemRef4 *k, MemRef4 *v,
                     MemRef4 *o, MemRef3 *lse, MemRef4 *dout, MemRef4 *dq,
                     MemRef4 *dk, MemRef4 *dv) {
  int64_t B = q->sizes[0], Hq = q->sizes[1], Sq = q->sizes[2];
  int64_t D = q->sizes[3], Hkv = k->sizes[1], Sk = k->sizes[2];
  int64_t Dv = v->sizes[3], group = Hq / Hkv, offset = Sk - Sq;
  int f16 = sem->f16;
  ++fake_calls;
  fake_last_q = *q;
  fake_last_o = *o;
  fake_last_dq = *dq;
  fake_last_dk = *dk;
  fake_last_dv = *dv;
  if (!module)
    return;
  void *stream = mgpuStreamCreate();
  size_t rows = (size_t)(B * Hq * Sq);
  float *delta = mgpuMemAlloc(rows * 4, stream, 0);
  float *dqAcc = mgpuMemAlloc(rows * (size_t)D * 4, stream, 0);
  fake_last_workspace = dqAcc;
  if (!delta || !dqAcc || D > 256 || Dv > 256)
    goto done; /* Leaves the gradients as they were: a failure. */
  if (!bwdBug("memset"))
    mgpuMemset32(dqAcc, 0, rows * (size_t)D, stream);

  launchBwd("fake_bwd_delta", (Sq + 63) / 64, Hq, B, stream, delta);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        float sum = 0;
        for (int64_t c = 0; c < Dv; ++c)
          sum += load(dout, f16, b, h, i, c) * load(o, f16, b, h, i, c);
        delta[(b * Hq + h) * Sq + i] = sum;
      }

  launchBwd("fake_bwd_kv", (Sk + 63) / 64, Hkv, B, stream, dqAcc);
  const float *l = (const float *)lse->aligned + lse->offset;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t hk = 0; hk < Hkv; ++hk)
      for (int64_t j = 0; j < Sk; ++j) {
        float dkRow[256] = {0}, dvRow[256] = {0};
        for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
          if (bwdBug("gqa") && h != hk * group)
            continue;
          for (int64_t i = 0; i < Sq; ++i) {
            float li = l[b * lse->strides[0] + h * lse->strides[1] +
                         i * lse->strides[2]];
            int visible = (!sem->causal || j <= i + offset) &&
                          (sem->left < 0 || j >= i + offset - sem->left) &&
                          (sem->right < 0 || j <= i + offset + sem->right);
            if (!visible || li == -INFINITY)
              continue;
            float x = 0;
            for (int64_t c = 0; c < D; ++c)
              x += load(q, f16, b, h, i, c) * load(k, f16, b, hk, j, c);
            x *= sem->scale;
            float s = x, grad = 1;
            if (sem->softcap > 0) {
              float t = tanhf(x / sem->softcap);
              s = sem->softcap * t;
              grad = 1 - t * t;
            }
            s += scoreShift(b, h, i + offset, j);
            float p = expf(s - li), dp = 0;
            for (int64_t c = 0; c < Dv; ++c)
              dp += load(dout, f16, b, h, i, c) * load(v, f16, b, hk, j, c);
            float ds =
                roundTo(f16, p * (dp - delta[(b * Hq + h) * Sq + i]) * grad);
            float pr = roundTo(f16, p);
            float dsScaled = ds * sem->scale;
            for (int64_t c = 0; c < Dv; ++c)
              dvRow[c] += pr * load(dout, f16, b, h, i, c);
            for (int64_t c = 0; c < D; ++c) {
              dkRow[c] +=
                  (bwdBug("scale") ? ds : dsScaled) * load(q, f16, b, h, i, c);
              dqAcc[((b * Hq + h) * Sq + i) * D + c] +=
                  dsScaled * load(k, f16, b, hk, j, c);
            }
          }
        }
        for (int64_t c = 0; c < D; ++c)
          store(dk, f16, b, hk, j, c, dkRow[c]);
        for (int64_t c = 0; c < Dv; ++c)
          store(dv, f16, b, hk, j, c, dvRow[c]);
      }

  launchBwd("fake_bwd_dq", (Sq + 63) / 64, Hq, B, stream, dqAcc);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < Sq; ++i)
        for (int64_t c = 0; c < D; ++c)
          store(dq, f16, b, h, i, c, dqAcc[((b * Hq + h) * Sq + i) * D + c]);
done:
  mgpuMemFree(dqAcc, stream);
  mgpuMemFree(delta, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

void _mlir_ciface_fake_bwd(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *o,
                           MemRef3 *lse, MemRef4 *dout, MemRef4 *dq,
                           MemRef4 *dk, MemRef4 *dv) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  backward(&sem, q, k, v, o, lse, dout, dq, dk, dv);
}

void _mlir_ciface_fake_bwd_f16(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *o,
                               MemRef3 *lse, MemRef4 *dout, MemRef4 *dq,
                               MemRef4 *dk, MemRef4 *dv) {
  static const Semantics sem = {1, 0, 16, 4, 30.0f, 0.2f};
  backward(&sem, q, k, v, o, lse, dout, dq, dk, dv);
}

void _mlir_ciface_fake_bwd_alibi(MemRef4 *q, MemRef4 *k, MemRef4 *v, MemRef4 *o,
                                 MemRef3 *lse, MemRef4 *dout, MemRef2 *slopes,
                                 MemRef4 *dq, MemRef4 *dk, MemRef4 *dv) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  alibiSlopes = slopes;
  backward(&sem, q, k, v, o, lse, dout, dq, dk, dv);
  alibiSlopes = 0;
}

void _mlir_ciface_fake_bwd_perm(MemRef4 *dk, MemRef4 *dout, MemRef4 *q,
                                MemRef4 *dv, MemRef3 *lse, MemRef4 *k,
                                MemRef4 *dq, MemRef4 *o, MemRef4 *v) {
  static const Semantics sem = {0, 1, -1, -1, 0.0f, 0.125f};
  backward(&sem, q, k, v, o, lse, dout, dq, dk, dv);
}

void _mlir_ciface_fake_kind(MemRef4 *q) { (void)q; }
