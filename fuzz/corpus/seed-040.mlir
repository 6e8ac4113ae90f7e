func.func @case33(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o : memref<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}
