// RUN: flash-opt %s -split-input-file --flash-to-gpu="chip=sm_90a" -verify-diagnostics -o /dev/null

// What the wgmma path does not generate is refused at the grid: a head dim
// that is not a multiple of 64 (128-byte panels), a block_n over 256. The
// grids are unsupported-errors.mlir's, with wgmma layouts and config.

!Q = memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @d32(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs a head dim that is a multiple of 64 (128-byte panels), not 32}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x32xbf16, #smem>
    %e = tensor.empty() : tensor<64x32xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x32xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x32xbf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x32xbf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x32xbf16, #smem>, tensor<64x32xbf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xbf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x64xbf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xbf16, #acc>, tensor<64x32xbf16, #smem>) outs(%acc : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      flash.yield %acc1, %next : tensor<64x32xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x32xbf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x32xf32, #acc>) outs(%oe : tensor<64x32xbf16, #acc>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<64x32xbf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x32xbf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @wide(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs block_n a multiple of 16 up to 256, not 512}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 512, warps = 4, stages = 2, wgmma = true>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 512 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<512x64xbf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<512x64xbf16, #smem>
      %se = tensor.empty() : tensor<64x512xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x512xf32, #acc>) -> tensor<64x512xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xbf16, #smem>, tensor<512x64xbf16, #smem>) outs(%s0 : tensor<64x512xf32, #acc>) -> tensor<64x512xf32, #acc>
      %pe = tensor.empty() : tensor<64x512xbf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x512xf32, #acc>) outs(%pe : tensor<64x512xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x512xbf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x512xbf16, #acc>, tensor<512x64xbf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %acc1, %next : tensor<64x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xbf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32, #acc>) outs(%oe : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<64x64xbf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xbf16, #acc> -> !V
  }
  return
}
