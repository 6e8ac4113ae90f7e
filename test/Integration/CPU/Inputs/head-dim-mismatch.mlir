// Q/K head dim 64 but V/O head dim 32 on O only: the signature is rejected.
func.func @k(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
             %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x32xf32>) {
  return
}
