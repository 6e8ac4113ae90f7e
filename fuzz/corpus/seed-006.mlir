func.func @config(%q: tensor<1x8x128x64xf16>, %k: tensor<1x8x128x64xf16>,
                  %v: tensor<1x8x128x64xf16>) -> tensor<1x8x128x64xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>}
       -> tensor<1x8x128x64xf16>
  %o2 = flash.attention ins(%q, %k, %o : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, splits = 8>}
       -> tensor<1x8x128x64xf16>
  return %o2 : tensor<1x8x128x64xf16>
}
