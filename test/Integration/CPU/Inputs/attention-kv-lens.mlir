!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !t, %v: !t, %o: !t, %lens: memref<?xi32>) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : memref<?xi32>)
      outs(%o : !t)
  return
}
