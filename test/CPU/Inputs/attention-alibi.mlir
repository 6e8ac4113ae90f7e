// ALiBi: refused by flash-run (no ALiBi inputs yet).
!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !t, %v: !t, %slopes: memref<?xf32>, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) alibi(%slopes : memref<?xf32>)
      outs(%o : !t)
  return
}
