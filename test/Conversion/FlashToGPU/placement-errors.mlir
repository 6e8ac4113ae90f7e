// RUN: flash-opt %s -split-input-file --flash-to-gpu -verify-diagnostics -o /dev/null

// Hardening (issue #14), class "placement": a grid that is not host code in
// a func.func gets a diagnostic at the grid from flash-to-gpu (which names
// the kernel after the host function and launches it from there); it used
// to segfault on the missing func.func. The grids are unsupported-errors.mlir's.

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
gpu.module @device {
  gpu.func @in_gpu_func(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
    // expected-error @+1 {{flash-to-gpu: the attention's grid must be host code inside a func.func, not inside 'gpu.func'}}
    flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
      %c0 = arith.constant 0 : index
      %cbm = arith.constant 64 : index
      %cbn = arith.constant 64 : index
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
    gpu.return
  }
}

// -----

!Q = memref<1x1x64x64xbf16>
!V = memref<1x1x64x64xbf16>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
llvm.func @in_llvm_func() {
  %q = memref.alloc() : !Q
  %k = memref.alloc() : !Q
  %v = memref.alloc() : !V
  %o = memref.alloc() : !V
  %blocks = arith.constant 1 : index
  %heads = arith.constant 1 : index
  %batch = arith.constant 1 : index
  %sq = arith.constant 1 : index
  %sk = arith.constant 1 : index
  %kv_blocks = arith.constant 1 : index
  // expected-error @+1 {{flash-to-gpu: the attention's grid must be host code inside a func.func, not inside 'llvm.func'}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
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
  llvm.return
}
