// RUN: flash-opt %s -split-input-file --flash-to-gpu -verify-diagnostics -o /dev/null

// What flash-to-gpu does not generate yet is refused at the grid, not
// miscompiled. Each case is a small grid in the form flash-to-gpu consumes
// (the Q tile, one KV loop with flash-pipeline-kv's ops, S = Q K^T, P = S in
// the element type, O += P V, O's store; layouts as flash-assign-layouts
// gives them; no online softmax, whose math flash-to-gpu lowers like any
// other element-wise op) with one unsupported property: f32 (the CPU path's
// type), Dv != D, a head dim that is not a multiple of 16 from 32 to 256,
// stages outside 2-4, a block_m that is not 16 or 32 rows a warp, a block_n
// that is not a multiple of 16, tiles over the shared memory, a strided head
// dim, wgmma off sm_90a, a block_mask hint that is no entry argument.

// f32 is the CPU path's type.
!Q = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @f32(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: element type 'f32' is not supported on the GPU (bf16 or f16)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xf32, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xf32, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xf32, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xf32, #smem>, tensor<64x64xf32, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xf32, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %t = arith.addf %in, %zero : f32
        linalg.yield %t : f32
      } -> tensor<64x64xf32, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xf32, #acc>, tensor<64x64xf32, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %acc1, %next : tensor<64x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xf32, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32, #acc>) outs(%oe : tensor<64x64xf32, #acc>) {
    ^bb0(%in: f32, %out: f32):
      %t = arith.addf %in, %zero : f32
      linalg.yield %t : f32
    } -> tensor<64x64xf32, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xf32, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @dv(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: head dim of V different from Q/K is not supported yet}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xbf16, #smem>
    %e = tensor.empty() : tensor<64x128xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x128xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xbf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x128xbf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xbf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x64xbf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xbf16, #acc>, tensor<64x128xbf16, #smem>) outs(%acc : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
      flash.yield %acc1, %next : tensor<64x128xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x128xbf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x128xf32, #acc>) outs(%oe : tensor<64x128xbf16, #acc>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<64x128xbf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x128xbf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x40xf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x40xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @d40(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: head dim 40 is not supported (a multiple of 16 from 32 to 256: the mma k-step is 16)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x40xf16, #smem>
    %e = tensor.empty() : tensor<64x40xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x40xf32, #acc>) -> tensor<64x40xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x40xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x40xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x40xf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x40xf16, #smem>, tensor<64x40xf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<64x64xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xf16, #acc>, tensor<64x40xf16, #smem>) outs(%acc : tensor<64x40xf32, #acc>) -> tensor<64x40xf32, #acc>
      flash.yield %acc1, %next : tensor<64x40xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x40xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x40xf32, #acc>) outs(%oe : tensor<64x40xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<64x40xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x40xf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @stages(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: a 2- to 4-stage cp.async pipeline is generated (stages = 5)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 5>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 5
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 3
      flash.pipeline_prefetch %slot distance 4
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xf16, #smem>, tensor<64x64xf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<64x64xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xf16, #acc>, tensor<64x64xf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %acc1, %next : tensor<64x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32, #acc>) outs(%oe : tensor<64x64xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<64x64xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @rows_per_warp(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: block_m = 48 needs 16 or 32 rows per warp (warps = 4)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 48, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 48 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<48x64xf16, #smem>
    %e = tensor.empty() : tensor<48x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32, #acc>) -> tensor<48x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<48x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xf16, #smem>
      %se = tensor.empty() : tensor<48x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<48x64xf32, #acc>) -> tensor<48x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<48x64xf16, #smem>, tensor<64x64xf16, #smem>) outs(%s0 : tensor<48x64xf32, #acc>) -> tensor<48x64xf32, #acc>
      %pe = tensor.empty() : tensor<48x64xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<48x64xf32, #acc>) outs(%pe : tensor<48x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<48x64xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<48x64xf16, #acc>, tensor<64x64xf16, #smem>) outs(%acc : tensor<48x64xf32, #acc>) -> tensor<48x64xf32, #acc>
      flash.yield %acc1, %next : tensor<48x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<48x64xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<48x64xf32, #acc>) outs(%oe : tensor<48x64xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<48x64xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<48x64xf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @block_n(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: block_n = 8 must be a multiple of 16}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 8, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<8x64xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<8x64xf16, #smem>
      %se = tensor.empty() : tensor<64x8xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x8xf32, #acc>) -> tensor<64x8xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xf16, #smem>, tensor<8x64xf16, #smem>) outs(%s0 : tensor<64x8xf32, #acc>) -> tensor<64x8xf32, #acc>
      %pe = tensor.empty() : tensor<64x8xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x8xf32, #acc>) outs(%pe : tensor<64x8xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<64x8xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x8xf16, #acc>, tensor<8x64xf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %acc1, %next : tensor<64x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32, #acc>) outs(%oe : tensor<64x64xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<64x64xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xf16, #acc> -> !V
  }
  return
}

// -----

!Q = memref<?x?x?x256xf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x256xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @smem(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: the tiles need 327680 bytes of shared memory, over the target's 227 KiB}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 128, block_n = 128, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 128 : index
    %cbn = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<128x256xf16, #smem>
    %e = tensor.empty() : tensor<128x256xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32, #acc>) -> tensor<128x256xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<128x256xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<128x256xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<128x256xf16, #smem>
      %se = tensor.empty() : tensor<128x128xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<128x256xf16, #smem>, tensor<128x256xf16, #smem>) outs(%s0 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      %pe = tensor.empty() : tensor<128x128xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<128x128xf32, #acc>) outs(%pe : tensor<128x128xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<128x128xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<128x128xf16, #acc>, tensor<128x256xf16, #smem>) outs(%acc : tensor<128x256xf32, #acc>) -> tensor<128x256xf32, #acc>
      flash.yield %acc1, %next : tensor<128x256xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<128x256xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<128x256xf32, #acc>) outs(%oe : tensor<128x256xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<128x256xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<128x256xf16, #acc> -> !V
  }
  return
}

// -----

// A strided head dim cannot be read with 16-byte copies.
!Q = memref<?x?x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>
!V = memref<?x?x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @inner_stride(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: the head dim must be contiguous (stride 1)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c0 = arith.constant 0 : index
    %cbm = arith.constant 64 : index
    %cbn = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %row = arith.muli %m, %cbm : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !Q -> tensor<64x64xf16, #smem>
    %e = tensor.empty() : tensor<64x64xf32, #acc>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %slot0 = flash.pipeline_prologue stages 2
    %r:2 = flash.kv_loop main %j = %c0 to %kv_blocks iter_args(%acc = %acc0, %slot = %slot0) -> (tensor<64x64xf32, #acc>, index) {
      flash.pipeline_wait %slot pending 0
      flash.pipeline_prefetch %slot distance 1
      %next = flash.pipeline_advance %slot
      %col = arith.muli %j, %cbn : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk slot(%slot) : !Q -> tensor<64x64xf16, #smem>
      %vt = flash.tile_load v %v[%b, %h, %col] limit %sk slot(%slot) : !V -> tensor<64x64xf16, #smem>
      %se = tensor.empty() : tensor<64x64xf32, #acc>
      %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %s = linalg.matmul indexing_maps = [#qk_q, #qk_k, #qk_s] ins(%qt, %kt : tensor<64x64xf16, #smem>, tensor<64x64xf16, #smem>) outs(%s0 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %pe = tensor.empty() : tensor<64x64xf16, #acc>
      %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32, #acc>) outs(%pe : tensor<64x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %t = arith.truncf %in : f32 to f16
        linalg.yield %t : f16
      } -> tensor<64x64xf16, #acc>
      %acc1 = linalg.matmul ins(%p, %vt : tensor<64x64xf16, #acc>, tensor<64x64xf16, #smem>) outs(%acc : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %acc1, %next : tensor<64x64xf32, #acc>, index
    }
    flash.pipeline_drain
    %oe = tensor.empty() : tensor<64x64xf16, #acc>
    %ot = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r#0 : tensor<64x64xf32, #acc>) outs(%oe : tensor<64x64xf16, #acc>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    } -> tensor<64x64xf16, #acc>
    flash.tile_store o %ot, %o[%b, %h, %row] rows %cbm : tensor<64x64xf16, #acc> -> !V
  }
  return
}

// -----

// wgmma is sm_90a's: the default chip (sm_90) refuses the configuration.
!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @wgmma_chip(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs chip sm_90a, not sm_90}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>, scale = 1.250000e-01 : f32} {
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
  return
}

// -----

// The runtime passes the block_mask hint as an entry argument, which the ABI
// record names: a hint the function makes itself cannot be named.
!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#qk_q = affine_map<(m, n, k) -> (m, k)>
#qk_k = affine_map<(m, n, k) -> (n, k)>
#qk_s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @hint_not_argument(%q: !Q, %k: !Q, %v: !V, %o: !V, %blocks: index, %heads: index, %batch: index, %sq: index, %sk: index, %kv_blocks: index) {
  %hint = memref.alloc() : memref<1x1x4x4xi32>
  // expected-error @+1 {{flash-to-gpu: the block_mask hint must be an argument of the entry function (the runtime passes it)}}
  flash.grid (%m, %h, %b) in (%blocks, %heads, %batch) block_mask(%hint : memref<1x1x4x4xi32>) attributes {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
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
  return
}
