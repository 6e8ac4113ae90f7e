// The bundled example for the GPU: the same causal GQA attention as
// attention.mlir (8 query heads sharing 2 KV heads, head dim 128, O and the
// log-sum-exp, any strides so BSHD storage is a view, dynamic batch, heads
// and lengths), in bf16. scripts/run-example.sh compiles it with
// flash-lower-to-gpu and runs it with flash-run-gpu where there is a GPU.
// flash-plan picks 64 x 64 with 4 warps (mma.sync) for sm_80 to sm_90; for
// sm_90a, warpgroup MMA with 64 x 96 below 2048 query rows and the producer
// warpgroup's 128 x 96 from there on, both behind a branch on Sq.
!T = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @attention(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {causal}
  return
}
