// Static shapes, where canonicalize folds most (unit batch, one query row
// block), and a decode entry with kv_lens (fold-gqa, run-time split-KV).
func.func @unit(%q: memref<1x4x128x64xbf16>, %k: memref<1x4x128x64xbf16>, %v: memref<1x4x128x64xbf16>, %o: memref<1x4x128x64xbf16>, %lse: memref<1x4x128xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x4x128x64xbf16>, memref<1x4x128x64xbf16>, memref<1x4x128x64xbf16>) outs(%o, %lse : memref<1x4x128x64xbf16>, memref<1x4x128xf32>) {causal}
  return
}
func.func @decode(%q: memref<?x32x1x128xbf16>, %k: memref<?x8x?x128xbf16>, %v: memref<?x8x?x128xbf16>, %lens: memref<?xi32>, %o: memref<?x32x1x128xbf16>) {
  flash.attention ins(%q, %k, %v : memref<?x32x1x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>) kv_lens(%lens : memref<?xi32>) outs(%o : memref<?x32x1x128xbf16>)
  return
}
