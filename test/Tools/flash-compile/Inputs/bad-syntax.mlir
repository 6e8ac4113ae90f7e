func.func @f(%q: memref<2x8x128x64xbf16>
