/*===- flashrt.h - FlashMLIR runtime C API ------------------------*- C -*-===*\
|*                                                                            *|
|* The runtime that runs a FlashMLIR attention artifact (libNAME.so, lowered  *|
|* by the compiler for NVIDIA GPUs) on a machine with only the CUDA driver:   *|
|* no MLIR, no CUDA toolkit. libflashrt.so loads libcuda.so.1 at run time,    *|
|* implements the mgpu* launch ABI that MLIR's GPU host lowering calls (the   *|
|* artifact leaves those symbols undefined, so libflashrt.so must be in the   *|
|* global symbol scope before an artifact is opened), and offers this C API:  *|
|* open an artifact, validate tensors against its ABI record and run it (a   *|
|* forward entry, or a backward one through flashrt_attention_backward).     *|
|*                                                                            *|
|* Every function returns a flashrt_status; on failure flashrt_last_error()   *|
|* (thread-local) says why. Nothing here aborts, also without a driver.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FLASHRT_H
#define FLASHRT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define FLASHRT_API __attribute__((visibility("default")))
#else
#define FLASHRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flashrt_status {
  FLASHRT_OK = 0,
  FLASHRT_ERR_INVALID_ARGUMENT = 1, /* bad pointer, shape, stride, dtype... */
  FLASHRT_ERR_NO_DRIVER = 2,        /* libcuda.so.1 missing or unusable */
  FLASHRT_ERR_NO_DEVICE = 3,        /* driver present, no (such) GPU */
  FLASHRT_ERR_ARCH = 4,             /* artifact built for another GPU arch */
  FLASHRT_ERR_LOAD = 5,             /* artifact or its GPU module not loaded */
  FLASHRT_ERR_LAUNCH = 6,           /* kernel launch or execution failed */
  FLASHRT_ERR_CUDA = 7              /* any other CUDA driver error */
} flashrt_status;

/* Element types, for flashrt_tensor.dtype. */
enum {
  FLASHRT_DTYPE_UNCHECKED = 0, /* not checked against the artifact */
  FLASHRT_DTYPE_F16 = 1,
  FLASHRT_DTYPE_BF16 = 2,
  FLASHRT_DTYPE_F32 = 3,
  FLASHRT_DTYPE_I32 = 4 /* kv_lens and block_table */
};

typedef struct flashrt_kernel flashrt_kernel;

/* A device tensor in logical order: Q/K/V/O are rank 4 [batch, heads, seq,
 * head_dim], LSE rank 3 [batch, heads_q, seq_q], kv_lens rank 1 [batch] and
 * block_table rank 2 [batch, pages_per_seq] (both i32). Sizes and strides are in
 * elements (PyTorch's x.size()/x.stride()); a BSHD buffer is passed as the
 * strided view x.transpose(1, 2). `dtype` (FLASHRT_DTYPE_*) is checked against
 * the artifact unless 0; it sits in what would be padding, so a zeroed struct
 * that does not name it keeps the layout and skips the check. */
typedef struct flashrt_tensor {
  void *data;
  int64_t sizes[4];
  int64_t strides[4];
  int32_t rank;
  int32_t dtype;
} flashrt_tensor;

/* Why the last failing call on this thread failed; "" after a success.
 * Valid until the next flashrt call on this thread. */
FLASHRT_API const char *flashrt_last_error(void);

/* Opens `artifact_path` (a file path, also without a slash) with dlopen
 * (RTLD_NOW | RTLD_LOCAL), finds `_mlir_ciface_<func>` and its ABI record
 * `<func>_flash_abi`, and reports what the artifact's constructor met while
 * loading its GPU module: no driver, no device, a GPU of another architecture
 * (FLASHRT_ERR_ARCH, also checked against the ABI's "arch"), a module the
 * driver rejects. */
FLASHRT_API int flashrt_open(const char *artifact_path, const char *func,
                             flashrt_kernel **out);

/* The artifact's ABI record, a JSON object (dtype, head dims, lse, arch,
 * causal, window, softcap, scale, tile configuration, captures...). */
FLASHRT_API const char *flashrt_abi(const flashrt_kernel *k);

/* Runs the attention O = softmax(Q K^T * scale) V (and LSE) on `stream` (a
 * CUstream; NULL is the legacy default stream). Checks first: ranks, sizes
 * consistent across tensors, Hq % Hkv == 0, head dims, dtype and LSE presence
 * as the artifact expects, innermost stride 1, Q/K/V/O 16-byte aligned with
 * other strides multiples of 8 elements (16-byte rows), each view under 2 GiB
 * (the kernels index with 32 bits, unless the ABI says "index_bits":64), and
 * that the data is device memory of the artifact's GPU covering each view.
 * An empty problem (batch, heads or query length 0) returns FLASHRT_OK
 * without a launch. Waits for the kernel unless flashrt_set_async(1).
 * Entries whose ABI has kv_lens or a block table are refused: they take
 * flashrt_attention_kv; entries with captures take
 * flashrt_attention_captures, backward entries flashrt_attention_backward
 * (every forward run and time function refuses them). */
FLASHRT_API int flashrt_attention(flashrt_kernel *k, const flashrt_tensor *q,
                                  const flashrt_tensor *kk,
                                  const flashrt_tensor *v,
                                  const flashrt_tensor *o,
                                  const flashrt_tensor *lse, void *stream);

/* flashrt_attention for entries over a KV cache (ABI "kv_lens": true and/or
 * "paged": true; it also runs every other entry, with both NULL):
 *  - kv_lens: i32 [B], unit stride; kv_lens[b] keys of sequence b are valid
 *    (at most K's seq length, or pages_per_seq * page_size when paged); the
 *    causal mask aligns bottom-right with Sk = kv_lens[b]. NULL iff the ABI
 *    has no kv_lens.
 *  - block_table: i32 [B, pages_per_seq], unit inner stride (ABI "paged":
 *    true, NULL otherwise). K and V are then the page pool [num_pages, Hkv,
 *    page_size, D] (typically a [num_pages, page_size, Hkv, D] buffer passed
 *    as x.transpose(1, 2)); key j of sequence b is slot j % page_size of page
 *    block_table[b][j / page_size].
 * The values of kv_lens and block_table (device memory) are not checked: they
 * must lie in range. Besides flashrt_attention's checks, Q/O/LSE and K/V must
 * match the ABI's static "q_shape"/"kv_shape" dims (the kernel is compiled
 * for them). */
FLASHRT_API int flashrt_attention_kv(flashrt_kernel *k,
                                     const flashrt_tensor *q,
                                     const flashrt_tensor *kk,
                                     const flashrt_tensor *v,
                                     const flashrt_tensor *kv_lens,
                                     const flashrt_tensor *block_table,
                                     const flashrt_tensor *o,
                                     const flashrt_tensor *lse, void *stream);

/* flashrt_attention_kv for entries whose ABI lists "captures": the
 * read-only tensors a score_mod / mask_mod reads (a per-token document id,
 * a bias table...). `captures` points to `num_captures` tensors in the
 * order of the ABI's "captures" array, each of the rank (0 to 4) and dtype
 * it names (f32, i32, bf16 or f16), with its static "shape" dims, unit
 * strides where the entry takes a contiguous tensor ("contiguous": true,
 * row-major) or its static "strides" otherwise, aligned to its element,
 * non-empty (the kernel clamps its reads into the tensor) and, like every
 * tensor, a view of device memory under 2 GiB for 32-bit kernels. The
 * count must match: entries without captures take NULL / 0 (so this call
 * runs every entry), and entries with captures are refused by
 * flashrt_attention and flashrt_attention_kv. At most FLASHRT_MAX_CAPTURES.
 */
#define FLASHRT_MAX_CAPTURES 8
FLASHRT_API int flashrt_attention_captures(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *kv_lens,
    const flashrt_tensor *block_table, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *o, const flashrt_tensor *lse,
    void *stream);

/* flashrt_attention timed with CUDA events on `stream`: `warmup` untimed
 * runs, then `reps` timed ones; *median_ms is the median. */
FLASHRT_API int flashrt_time_ms(flashrt_kernel *k, const flashrt_tensor *q,
                                const flashrt_tensor *kk,
                                const flashrt_tensor *v,
                                const flashrt_tensor *o,
                                const flashrt_tensor *lse, void *stream,
                                int warmup, int reps, float *median_ms);

/* flashrt_time_ms for flashrt_attention_kv's arguments. */
FLASHRT_API int flashrt_time_kv_ms(flashrt_kernel *k, const flashrt_tensor *q,
                                   const flashrt_tensor *kk,
                                   const flashrt_tensor *v,
                                   const flashrt_tensor *kv_lens,
                                   const flashrt_tensor *block_table,
                                   const flashrt_tensor *o,
                                   const flashrt_tensor *lse, void *stream,
                                   int warmup, int reps, float *median_ms);

/* flashrt_time_ms for flashrt_attention_captures's arguments. */
FLASHRT_API int flashrt_time_captures_ms(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *kv_lens,
    const flashrt_tensor *block_table, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *o, const flashrt_tensor *lse,
    void *stream, int warmup, int reps, float *median_ms);

/* Runs a backward entry (ABI "kind": "backward", compiled from
 * flash.attention_backward): the gradients dq, dk, dv of L = sum(dout * O)
 * for O = attention(q, k, v), given the forward's O and LSE (f32 [B, Hq,
 * Sq], natural log, -inf on rows that saw no key) and dout = dL/dO, on
 * `stream`. dout is like O ([B, Hq, Sq, Dv]), dq like q, dk like k and dv
 * like v; with GQA each dk/dv head sums over its group of query heads.
 * Entries with ALiBi or a score_mod / mask_mod take those tensors in
 * `captures` as flashrt_attention_captures does (ALiBi's slopes are one of
 * them, in the order of the ABI's "captures"); NULL / 0 otherwise. Checks
 * as flashrt_attention (ranks, sizes across all nine tensors, Hq % Hkv,
 * head dims, dtypes, strides, alignment, 32-bit extents, device memory),
 * and that no gradient starts where an input or another gradient does.
 * The entry allocates and zeroes its own workspace (scratch memory as in
 * flashrt_set_allocator). Without a query (B, Hq or Sq 0) or a key (Sk 0)
 * nothing is launched and the non-empty gradients are set to 0. Forward
 * entries are refused, naming their function, and flashrt_attention* refuse
 * backward entries. Waits for the kernels unless flashrt_set_async(1). */
FLASHRT_API int flashrt_attention_backward(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *o, const flashrt_tensor *lse,
    const flashrt_tensor *dout, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *dq, const flashrt_tensor *dk,
    const flashrt_tensor *dv, void *stream);

/* flashrt_time_ms for flashrt_attention_backward's arguments. */
FLASHRT_API int flashrt_time_backward_ms(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *o, const flashrt_tensor *lse,
    const flashrt_tensor *dout, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *dq, const flashrt_tensor *dk,
    const flashrt_tensor *dv, void *stream, int warmup, int reps,
    float *median_ms);

/* Unloads the artifact (its destructor unloads the GPU module). NULL is a
 * no-op. */
FLASHRT_API void flashrt_close(flashrt_kernel *k);

/* Process-wide. Off (the default): every launch waits for the kernel, so
 * errors surface in the call that caused them. On: a launch on the caller's
 * stream returns at once, as PyTorch expects. */
FLASHRT_API void flashrt_set_async(int on);

/* Process-wide, default on: flashrt_attention asks the driver about every
 * tensor (device memory, its device, its view inside the allocation). That
 * costs about 0.5 us per tensor; callers whose tensors are known to
 * be device memory of the current device, in bounds (PyTorch CUDA tensors
 * are), may turn it off. Every other check stays. */
FLASHRT_API void flashrt_set_pointer_checks(int on);

/* Scratch memory (the split-KV partials an entry allocates and frees around
 * its kernels, through gpu.alloc/gpu.dealloc) comes by default from the
 * driver's stream-ordered pool, cached per stream. A caller with its own
 * allocator (PyTorch's caching allocator, so that the call can be captured
 * in a CUDA graph and its memory is accounted) hands it here: `alloc` gets
 * the byte count and the stream of the call (the one passed to
 * flashrt_attention*) and returns device memory usable in stream order on
 * it, or NULL on failure (the call then fails with FLASHRT_ERR_CUDA);
 * `free` gives a block back in stream order: work already queued on
 * `stream` may still read it. `user` is passed through. Process-wide; both
 * NULL restores the default, exactly one NULL is FLASHRT_ERR_INVALID_ARGUMENT.
 * Blocks of the default allocator are always freed by it; set a caller's
 * allocator while no call is running (a call frees what it allocated). */
typedef void *(*flashrt_alloc_fn)(size_t bytes, void *stream, void *user);
typedef void (*flashrt_free_fn)(void *ptr, void *stream, void *user);
FLASHRT_API int flashrt_set_allocator(flashrt_alloc_fn alloc,
                                      flashrt_free_fn free, void *user);

/* Calls a compiled function's C interface `_mlir_ciface_<func>` (found by
 * the caller with dlsym, e.g. a flash.combine entry, which has no ABI record)
 * with `nargs` (1-6) pointers to memref descriptors the caller built, its
 * launches on `stream`. Nothing about the operands is checked. Returns the
 * first error of the call; waits as flashrt_attention does. */
FLASHRT_API int flashrt_invoke(void *entry, int nargs, void *const *args,
                               void *stream);

/* Small device helpers for tools without PyTorch. They use the current CUDA
 * context, else the primary context of $FLASHRT_DEVICE (default 0). */
FLASHRT_API int flashrt_malloc(void **ptr, size_t bytes);
FLASHRT_API int flashrt_free(void *ptr);
FLASHRT_API int flashrt_memcpy_htod(void *dst, const void *src, size_t bytes);
FLASHRT_API int flashrt_memcpy_dtoh(void *dst, const void *src, size_t bytes);
FLASHRT_API int flashrt_memset(void *dst, unsigned char byte, size_t bytes);
FLASHRT_API int flashrt_synchronize(void);
FLASHRT_API int flashrt_device_info(int *cc_major, int *cc_minor, int *num_sms);

#ifdef __cplusplus
}
#endif

#endif /* FLASHRT_H */
