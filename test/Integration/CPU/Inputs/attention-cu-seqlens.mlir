// cu_seqlens (varlen): refused by flash-run (no varlen inputs yet).
!t = memref<1x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !t, %v: !t, %cq: memref<?xi32>, %ck: memref<?xi32>, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) cu_seqlens(%cq, %ck : memref<?xi32>, memref<?xi32>)
      outs(%o : !t)
  return
}
