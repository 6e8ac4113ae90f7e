func.func @case2(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>, %o: memref<2x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>) outs(%o : memref<2x8x128x64xf16>)
  return
}
