// The bundled example: causal GQA attention (8 query heads sharing 2 KV
// heads, head dim 128) returning O and the log-sum-exp, on memrefs with any
// strides (BHSD or FA2's BSHD storage). Batch, head counts and sequence
// lengths are dynamic: one compiled kernel serves every length. No
// #flash.config is written, so flash-plan chooses one (FA2's causal head
// dim 128 tile here: 64 x 64, 4 warps).
// f32 runs on the CPU path; attention-bf16.mlir is the same op for the GPU.
!T = memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !T, %k: !T, %v: !T, %o: !T, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, memref<?x?x?xf32>)
      {causal}
  return
}
