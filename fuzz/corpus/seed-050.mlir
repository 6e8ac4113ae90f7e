func.func @case43(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 0, block_n = 64, warps = 4, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}
