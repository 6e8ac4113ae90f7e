// A kv_lens attention for the size-guard tests (tool-sizes.test).
func.func @lens(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %lens: memref<?xi32>, %o: memref<?x?x?x16xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) kv_lens(%lens : memref<?xi32>) outs(%o : memref<?x?x?x16xf32>)
  return
}
