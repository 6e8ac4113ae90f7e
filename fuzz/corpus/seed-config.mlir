// #flash.config's hand-written parser: every key, both optional keys in
// either order, and the verifier's wgmma rule.
func.func @c(%q: tensor<1x8x128x64xf16>) -> tensor<1x8x128x64xf16> {
  %a = flash.attention ins(%q, %q, %q : tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 192, block_n = 96, warps = 12, stages = 2, wgmma = true>} -> tensor<1x8x128x64xf16>
  %b = flash.attention ins(%q, %q, %a : tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 3, wgmma = false, splits = 0>} -> tensor<1x8x128x64xf16>
  %c = flash.attention ins(%q, %q, %b : tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2, wgmma = true>} -> tensor<1x8x128x64xf16>
  return %c : tensor<1x8x128x64xf16>
}
