!t = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !t, %v: !t, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o : !t)
  return
}
