func.func @case37(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>)
  return
}
