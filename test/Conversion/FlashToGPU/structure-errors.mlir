// RUN: flash-opt %s -split-input-file --flash-to-gpu -verify-diagnostics -o /dev/null

// flash-to-gpu reads the tile-level ops and refuses, at the op, what it
// would otherwise lower wrongly or drop: K/V tiles that are not tile reads,
// a store of something other than the epilogue's outputs, an op with
// effects of its own in the grid or a KV loop, a second Q tile, a scalar op
// with no register-level lowering, a reduction across the rows; and a grid
// whose online softmax was not expanded by flash-online-softmax (the math
// it lowers is that pass's). Each case but the last is the small grid of
// unsupported-errors.mlir with one op changed or added.

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @k_not_loaded(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
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
    // expected-error @+1 {{flash-to-gpu: a KV loop must read one K tile (S = Q K^T) and one V tile (O += P V)}}
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = tensor.empty() : tensor<64x64xbf16, #smem>
      %vt = flash.tile_load k %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xbf16, #smem>
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

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @store_other(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
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
    // expected-error @+1 {{flash-to-gpu: an operand is not a tile in registers}}
    flash.tile_store o %qt, %o[%b, %h, %row] rows %cbm : tensor<64x64xbf16, #smem> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @store_in_grid(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index, %x: memref<?xf32>) {
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
    // expected-error @+1 {{flash-to-gpu: unexpected op in an attention grid}}
    memref.store %zero, %x[%c0] : memref<?xf32>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xbf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @two_q_tiles(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
    // expected-error @+1 {{flash-to-gpu: an attention grid reads one Q tile}}
    %qt2 = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
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

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @store_in_loop(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index, %x: memref<?xf32>) {
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
      // expected-error @+1 {{flash-to-gpu: unexpected op with memory effects in a KV loop}}
      memref.store %zero, %x[%c0] : memref<?xf32>
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

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @unselected_math(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
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
        // expected-error @+1 {{flash-to-gpu: no register-level lowering for this op in a tile computation}}
        %y = math.sin %in : f32
        %t = arith.truncf %y : f32 to bf16
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

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#transposed = affine_map<(i, j) -> (j, i)>
#rows = affine_map<(i, j) -> (i)>
#row = #flash.frag<row>
func.func @column_reduction(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %le = tensor.empty() : tensor<64xf32, #row>
    %l0 = linalg.fill ins(%zero : f32) outs(%le : tensor<64xf32, #row>) -> tensor<64xf32, #row>
    %slot0 = flash.pipeline_prologue stages 2
    %r:3 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %l = %l0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, index) {
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
      %re = tensor.empty() : tensor<64xf32, #row>
      // expected-error @+1 {{flash-to-gpu: only reductions of a [block_m, n] tile along its rows into a [block_m] vector are lowered}}
      %cr = linalg.generic {indexing_maps = [#transposed, #rows], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<64x64xf32, #acc>) outs(%re : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %y = arith.addf %in, %out : f32
        linalg.yield %y : f32
      } -> tensor<64xf32, #row>
      flash.yield %acc1, %cr, %next : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, index
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

// A grid whose online softmax flash-online-softmax did not expand: the math
// flash-to-gpu lowers is that pass's.
!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @unexpanded(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop main %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      // expected-error @+1 {{flash-to-gpu: run flash-online-softmax first (it expands the online softmax this op stands for)}}
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store o %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}
