func.func @memref_bshd(%q: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %k: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %v: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %o: memref<?x16x?x64xf16>, %lse: memref<?x16x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                      memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                      memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>)
      outs(%o, %lse : memref<?x16x?x64xf16>, memref<?x16x?xf32>) {causal}
  return
}
