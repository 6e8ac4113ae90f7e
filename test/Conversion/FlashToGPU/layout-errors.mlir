// RUN: flash-opt %s -split-input-file --flash-to-gpu -verify-diagnostics -o /dev/null

// flash-to-gpu reads the tiles' layouts and decides none: a grid whose
// tiles have no #flash.frag (flash-assign-layouts did not run) is refused,
// and so are layouts it cannot lower (a tile load in registers, an MMA kind
// that is not the config's). The grids are unsupported-errors.mlir's.

// Tiles without layouts (flash-assign-layouts did not run).
!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @no_layouts(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    // expected-error @+1 {{flash-to-gpu: a tile without a #flash.frag layout ('tensor<64x64xbf16>'); run flash-assign-layouts first}}
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16>
    %e = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xbf16>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xbf16>
      %se = tensor.empty() : tensor<64x64xf32>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32>) -> tensor<64x64xf32>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%s0 : tensor<64x64xf32>) -> tensor<64x64xf32>
      %pe = tensor.empty() : tensor<64x64xbf16>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32>) outs(%pe : tensor<64x64xbf16>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x64xbf16>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
      flash.yield %acc1, %next : tensor<64x64xf32>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xbf16>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32>) outs(%oe : tensor<64x64xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<64x64xbf16>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xbf16> -> !V
  }
  return
}

// -----

// A tile load in registers.
!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @load_in_registers(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    // expected-error @+1 {{flash-to-gpu: layout #flash.frag<acc, mma_sync> for a tile load (#flash.frag<smem, ...>)}}
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #acc>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xbf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xbf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xbf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x64xbf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
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

// -----

// wgmma layouts in a grid whose config is mma.sync's.
!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @other_mma(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    // expected-error @+1 {{flash-to-gpu: layout #flash.frag<smem, wgmma> in a grid compiled for mma_sync (its #flash.config)}}
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xbf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xbf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xbf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x64xbf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
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
