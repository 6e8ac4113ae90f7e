// The bundled example for the GPU: the same causal GQA attention as
// attention.mlir (8 query heads sharing 2 KV heads, head dim 128, O and the
// log-sum-exp, any strides so BSHD storage is a view, dynamic batch, heads
// and lengths), in bf16. scripts/run-example.sh compiles it with
// flash-lower-to-gpu (flash-plan picks FA2's 128 x 64, 4 warps) and runs it
// with flash-run-gpu where there is a GPU.
!T = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @attention(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {causal}
  return
}
