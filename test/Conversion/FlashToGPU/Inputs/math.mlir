// The input of ../math.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it, printed with type and layout
// aliases, the function's own argument names and the grid's axes named
// (qblock, head, batch); nothing else is edited, so flash-to-gpu's output is
// the named pipeline's. Regenerate a function from its quoted op when the
// tile level changes.

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#row_partial = #flash.frag<row_partial>
#row = #flash.frag<row>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
// @causal, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {causal, scale = 0.25 : f32,
//        config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
func.func @causal(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !T
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !T
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !T
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !T
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !T
  %0 = arith.divui %dim_0, %dim_5 : index
  %c64 = arith.constant 64 : index
  %1 = arith.ceildivsi %dim_1, %c64 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {causal, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>, scale = 2.500000e-01 : f32} {
    %2 = arith.divui %head, %0 : index
    %c64_6 = arith.constant 64 : index
    %3 = arith.muli %qblock, %c64_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !T -> tensor<64x64xbf16, #smem>
    %5 = tensor.empty() : tensor<64x64xf32, #acc>
    %cst = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %7 = tensor.empty() : tensor<64xf32, #row>
    %cst_7 = arith.constant 0xFF800000 : f32
    %8 = linalg.fill ins(%cst_7 : f32) outs(%7 : tensor<64xf32, #row>) -> tensor<64xf32, #row>
    %9 = tensor.empty() : tensor<64xf32, #row_partial>
    %cst_8 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<64xf32, #row_partial>) -> tensor<64xf32, #row_partial>
    %11 = arith.subi %dim_3, %dim_1 : index
    %c32 = arith.constant 32 : index
    %c64_9 = arith.constant 64 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c64_9 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_10 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c32 : index
    %16 = arith.maxsi %15, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %17 = arith.floordivsi %c0_11, %c32 : index
    %18 = arith.minsi %17, %16 : index
    %c3 = arith.constant 3 : index
    %19 = arith.subi %16, %c3 : index
    %20 = arith.maxsi %18, %19 : index
    %21 = flash.pipeline_prologue stages 2
    %22:4 = flash.kv_loop masked_right %arg8 = %20 to %16 reversed iter_args(%arg9 = %6, %arg10 = %8, %arg11 = %10, %arg12 = %21) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %30 = flash.pipeline_advance %arg12
      %c32_13 = arith.constant 32 : index
      %31 = arith.muli %arg8, %c32_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %34 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%36 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %50 = linalg.index 0 : index
        %51 = arith.addi %3, %50 : index
        %52 = linalg.index 1 : index
        %53 = arith.addi %31, %52 : index
        %54 = arith.subi %dim_3, %dim_1 : index
        %55 = arith.addi %51, %54 : index
        %56 = arith.cmpi slt, %53, %dim_3 : index
        %57 = arith.cmpi sle, %53, %55 : index
        %58 = arith.andi %56, %57 : i1
        %cst_16 = arith.constant 0xFF800000 : f32
        %59 = arith.select %58, %out, %cst_16 : f32
        linalg.yield %59 : f32
      } -> tensor<64x32xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.maxnumf %in, %out : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row>
      %cst_15 = arith.constant 0.360673755 : f32
      %39 = tensor.empty() : tensor<64xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%38 : tensor<64xf32, #row>) outs(%39 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %51 = arith.cmpf oeq, %in, %cst_17 : f32
        %52 = arith.select %51, %cst_16, %50 : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<64xf32, #row>) outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.negf %in : f32
        %51 = math.fma %out, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<64x32xf32, #acc>
      %42 = tensor.empty() : tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %40 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%42 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %50 = arith.negf %in_16 : f32
        %51 = math.fma %in, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%43 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%44 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.addf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<64x64xf32, #acc>
      %47 = tensor.empty() : tensor<64x32xbf16, #acc>
      %48 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%47 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %50 = arith.truncf %in : f32 to bf16
        linalg.yield %50 : bf16
      } -> tensor<64x32xbf16, #acc>
      %49 = linalg.matmul ins(%48, %33 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%46 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %49, %38, %45, %30 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %23:4 = flash.kv_loop main %arg8 = %18 to %20 reversed iter_args(%arg9 = %22#0, %arg10 = %22#1, %arg11 = %22#2, %arg12 = %22#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %30 = flash.pipeline_advance %arg12
      %c32_13 = arith.constant 32 : index
      %31 = arith.muli %arg8, %c32_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %34 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.maxnumf %in, %out : f32
        linalg.yield %49 : f32
      } -> tensor<64xf32, #row>
      %cst_15 = arith.constant 0.360673755 : f32
      %38 = tensor.empty() : tensor<64xf32, #row>
      %39 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%37 : tensor<64xf32, #row>) outs(%38 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %50 = arith.cmpf oeq, %in, %cst_17 : f32
        %51 = arith.select %50, %cst_16, %49 : f32
        linalg.yield %51 : f32
      } -> tensor<64xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<64xf32, #row>) outs(%36 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.negf %in : f32
        %50 = math.fma %out, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<64x32xf32, #acc>
      %41 = tensor.empty() : tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %39 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%41 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %49 = arith.negf %in_16 : f32
        %50 = math.fma %in, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<64xf32, #row_partial>
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<64x32xf32, #acc>) outs(%43 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.addf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<64xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<64x64xf32, #acc>
      %46 = tensor.empty() : tensor<64x32xbf16, #acc>
      %47 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<64x32xf32, #acc>) outs(%46 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %49 = arith.truncf %in : f32 to bf16
        linalg.yield %49 : bf16
      } -> tensor<64x32xbf16, #acc>
      %48 = linalg.matmul ins(%47, %33 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%45 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %48, %37, %44, %30 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %24 = tensor.empty() : tensor<64x64xbf16, #acc>
    %25 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%23#0, %23#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row_partial>) outs(%24 : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: bf16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %31 = arith.divf %cst_15, %in_13 : f32
      %32 = arith.select %30, %cst_14, %31 : f32
      %33 = arith.mulf %in, %32 : f32
      %34 = arith.truncf %33 : f32 to bf16
      linalg.yield %34 : bf16
    } -> tensor<64x64xbf16, #acc>
    %26 = tensor.empty() : tensor<64xf32, #row>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%23#1, %23#2 : tensor<64xf32, #row>, tensor<64xf32, #row_partial>) outs(%26 : tensor<64xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 2.500000e-01 : f32
      %31 = arith.mulf %in, %cst_15 : f32
      %32 = math.log %in_13 : f32
      %33 = arith.addf %31, %32 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %34 = arith.select %30, %cst_16, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<64xf32, #row>
    %28 = arith.subi %dim_1, %3 : index
    %c64_12 = arith.constant 64 : index
    %29 = arith.minsi %c64_12, %28 : index
    flash.tile_store o %25, %o[%batch, %head, %3] rows %29 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %27, %lse[%batch, %head, %3] rows %29 : tensor<64xf32, #row> -> !L
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#row_partial = #flash.frag<row_partial>
#row = #flash.frag<row>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
// @window_softcap, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {window = array<i64: 5, 3>, softcap = 30.0 : f32,
//        config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
func.func @window_softcap(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !T
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !T
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !T
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !T
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !T
  %0 = arith.divui %dim_0, %dim_5 : index
  %c64 = arith.constant 64 : index
  %1 = arith.ceildivsi %dim_1, %c64 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 5, 3>} {
    %2 = arith.divui %head, %0 : index
    %c64_6 = arith.constant 64 : index
    %3 = arith.muli %qblock, %c64_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !T -> tensor<64x64xbf16, #smem>
    %5 = tensor.empty() : tensor<64x64xf32, #acc>
    %cst = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %7 = tensor.empty() : tensor<64xf32, #row>
    %cst_7 = arith.constant 0xFF800000 : f32
    %8 = linalg.fill ins(%cst_7 : f32) outs(%7 : tensor<64xf32, #row>) -> tensor<64xf32, #row>
    %9 = tensor.empty() : tensor<64xf32, #row_partial>
    %cst_8 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<64xf32, #row_partial>) -> tensor<64xf32, #row_partial>
    %11 = arith.subi %dim_3, %dim_1 : index
    %c32 = arith.constant 32 : index
    %c67 = arith.constant 67 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c67 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_9 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c32 : index
    %16 = arith.maxsi %15, %c0_9 : index
    %c0_10 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    %17 = arith.addi %3, %11 : index
    %18 = arith.subi %17, %c5 : index
    %c0_11 = arith.constant 0 : index
    %19 = arith.maxsi %c0_11, %18 : index
    %20 = arith.floordivsi %19, %c32 : index
    %21 = arith.minsi %20, %16 : index
    %c3 = arith.constant 3 : index
    %22 = arith.subi %16, %c3 : index
    %23 = arith.maxsi %21, %22 : index
    %c3_12 = arith.constant 3 : index
    %24 = arith.addi %21, %c3_12 : index
    %25 = arith.minsi %24, %23 : index
    %26 = flash.pipeline_prologue stages 2
    %27:4 = flash.kv_loop masked_right %arg8 = %23 to %16 reversed iter_args(%arg9 = %6, %arg10 = %8, %arg11 = %10, %arg12 = %26) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %36 = flash.pipeline_advance %arg12
      %c32_14 = arith.constant 32 : index
      %37 = arith.muli %arg8, %c32_14 : index
      %38 = flash.tile_load k %k[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %39 = flash.tile_load v %v[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %40 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_15 = arith.constant 0.000000e+00 : f32
      %41 = linalg.fill ins(%cst_15 : f32) outs(%40 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %42 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %38 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%41 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %43 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%42 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %cst_17 = arith.constant 0.00416666688 : f32
        %57 = arith.mulf %out, %cst_17 : f32
        %58 = math.tanh %57 : f32
        %cst_18 = arith.constant 3.000000e+01 : f32
        %59 = arith.mulf %58, %cst_18 : f32
        linalg.yield %59 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%43 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %57 = linalg.index 0 : index
        %58 = arith.addi %3, %57 : index
        %59 = linalg.index 1 : index
        %60 = arith.addi %37, %59 : index
        %61 = arith.subi %dim_3, %dim_1 : index
        %62 = arith.addi %58, %61 : index
        %63 = arith.cmpi slt, %60, %dim_3 : index
        %c3_17 = arith.constant 3 : index
        %64 = arith.addi %62, %c3_17 : index
        %65 = arith.cmpi sle, %60, %64 : index
        %66 = arith.andi %63, %65 : i1
        %c5_18 = arith.constant 5 : index
        %67 = arith.subi %62, %c5_18 : index
        %68 = arith.cmpi sge, %60, %67 : index
        %69 = arith.andi %66, %68 : i1
        %cst_19 = arith.constant 0xFF800000 : f32
        %70 = arith.select %69, %out, %cst_19 : f32
        linalg.yield %70 : f32
      } -> tensor<64x32xf32, #acc>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%44 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.maxnumf %in, %out : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 1.44269502 : f32
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %58 = arith.cmpf oeq, %in, %cst_18 : f32
        %59 = arith.select %58, %cst_17, %57 : f32
        linalg.yield %59 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%44 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.negf %in : f32
        %58 = math.fma %out, %cst_16, %57 : f32
        %59 = math.exp2 %58 : f32
        linalg.yield %59 : f32
      } -> tensor<64x32xf32, #acc>
      %49 = tensor.empty() : tensor<64xf32, #row>
      %50 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %47 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%49 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %57 = arith.negf %in_17 : f32
        %58 = math.fma %in, %cst_16, %57 : f32
        %59 = math.exp2 %58 : f32
        linalg.yield %59 : f32
      } -> tensor<64xf32, #row>
      %51 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%50 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row_partial>
      %52 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%48 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.addf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row_partial>
      %53 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%50 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64x64xf32, #acc>
      %54 = tensor.empty() : tensor<64x32xbf16, #acc>
      %55 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%48 : tensor<64x32xf32, #acc>) outs(%54 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %57 = arith.truncf %in : f32 to bf16
        linalg.yield %57 : bf16
      } -> tensor<64x32xbf16, #acc>
      %56 = linalg.matmul ins(%55, %39 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%53 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %56, %45, %52, %36 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %28:4 = flash.kv_loop main %arg8 = %25 to %23 reversed iter_args(%arg9 = %27#0, %arg10 = %27#1, %arg11 = %27#2, %arg12 = %27#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %36 = flash.pipeline_advance %arg12
      %c32_14 = arith.constant 32 : index
      %37 = arith.muli %arg8, %c32_14 : index
      %38 = flash.tile_load k %k[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %39 = flash.tile_load v %v[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %40 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_15 = arith.constant 0.000000e+00 : f32
      %41 = linalg.fill ins(%cst_15 : f32) outs(%40 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %42 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %38 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%41 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %43 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%42 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %cst_17 = arith.constant 0.00416666688 : f32
        %56 = arith.mulf %out, %cst_17 : f32
        %57 = math.tanh %56 : f32
        %cst_18 = arith.constant 3.000000e+01 : f32
        %58 = arith.mulf %57, %cst_18 : f32
        linalg.yield %58 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.maxnumf %in, %out : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 1.44269502 : f32
      %45 = tensor.empty() : tensor<64xf32, #row>
      %46 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%45 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %57 = arith.cmpf oeq, %in, %cst_18 : f32
        %58 = arith.select %57, %cst_17, %56 : f32
        linalg.yield %58 : f32
      } -> tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%46 : tensor<64xf32, #row>) outs(%43 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.negf %in : f32
        %57 = math.fma %out, %cst_16, %56 : f32
        %58 = math.exp2 %57 : f32
        linalg.yield %58 : f32
      } -> tensor<64x32xf32, #acc>
      %48 = tensor.empty() : tensor<64xf32, #row>
      %49 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %46 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%48 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %56 = arith.negf %in_17 : f32
        %57 = math.fma %in, %cst_16, %56 : f32
        %58 = math.exp2 %57 : f32
        linalg.yield %58 : f32
      } -> tensor<64xf32, #row>
      %50 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%49 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.mulf %out, %in : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row_partial>
      %51 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%47 : tensor<64x32xf32, #acc>) outs(%50 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.addf %out, %in : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row_partial>
      %52 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%49 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %56 = arith.mulf %out, %in : f32
        linalg.yield %56 : f32
      } -> tensor<64x64xf32, #acc>
      %53 = tensor.empty() : tensor<64x32xbf16, #acc>
      %54 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64x32xf32, #acc>) outs(%53 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %56 = arith.truncf %in : f32 to bf16
        linalg.yield %56 : bf16
      } -> tensor<64x32xbf16, #acc>
      %55 = linalg.matmul ins(%54, %39 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%52 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %55, %44, %51, %36 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %29:4 = flash.kv_loop masked_left %arg8 = %21 to %25 reversed iter_args(%arg9 = %28#0, %arg10 = %28#1, %arg11 = %28#2, %arg12 = %28#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %36 = flash.pipeline_advance %arg12
      %c32_14 = arith.constant 32 : index
      %37 = arith.muli %arg8, %c32_14 : index
      %38 = flash.tile_load k %k[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %39 = flash.tile_load v %v[%batch, %2, %37] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %40 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_15 = arith.constant 0.000000e+00 : f32
      %41 = linalg.fill ins(%cst_15 : f32) outs(%40 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %42 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %38 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%41 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %43 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%42 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %cst_17 = arith.constant 0.00416666688 : f32
        %57 = arith.mulf %out, %cst_17 : f32
        %58 = math.tanh %57 : f32
        %cst_18 = arith.constant 3.000000e+01 : f32
        %59 = arith.mulf %58, %cst_18 : f32
        linalg.yield %59 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%43 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %57 = linalg.index 0 : index
        %58 = arith.addi %3, %57 : index
        %59 = linalg.index 1 : index
        %60 = arith.addi %37, %59 : index
        %61 = arith.subi %dim_3, %dim_1 : index
        %62 = arith.addi %58, %61 : index
        %63 = arith.cmpi slt, %60, %dim_3 : index
        %c3_17 = arith.constant 3 : index
        %64 = arith.addi %62, %c3_17 : index
        %65 = arith.cmpi sle, %60, %64 : index
        %66 = arith.andi %63, %65 : i1
        %c5_18 = arith.constant 5 : index
        %67 = arith.subi %62, %c5_18 : index
        %68 = arith.cmpi sge, %60, %67 : index
        %69 = arith.andi %66, %68 : i1
        %cst_19 = arith.constant 0xFF800000 : f32
        %70 = arith.select %69, %out, %cst_19 : f32
        linalg.yield %70 : f32
      } -> tensor<64x32xf32, #acc>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%44 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.maxnumf %in, %out : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 1.44269502 : f32
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %58 = arith.cmpf oeq, %in, %cst_18 : f32
        %59 = arith.select %58, %cst_17, %57 : f32
        linalg.yield %59 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%44 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.negf %in : f32
        %58 = math.fma %out, %cst_16, %57 : f32
        %59 = math.exp2 %58 : f32
        linalg.yield %59 : f32
      } -> tensor<64x32xf32, #acc>
      %49 = tensor.empty() : tensor<64xf32, #row>
      %50 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %47 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%49 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %57 = arith.negf %in_17 : f32
        %58 = math.fma %in, %cst_16, %57 : f32
        %59 = math.exp2 %58 : f32
        linalg.yield %59 : f32
      } -> tensor<64xf32, #row>
      %51 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%50 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row_partial>
      %52 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%48 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.addf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64xf32, #row_partial>
      %53 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%50 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      } -> tensor<64x64xf32, #acc>
      %54 = tensor.empty() : tensor<64x32xbf16, #acc>
      %55 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%48 : tensor<64x32xf32, #acc>) outs(%54 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %57 = arith.truncf %in : f32 to bf16
        linalg.yield %57 : bf16
      } -> tensor<64x32xbf16, #acc>
      %56 = linalg.matmul ins(%55, %39 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%53 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %56, %45, %52, %36 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %30 = tensor.empty() : tensor<64x64xbf16, #acc>
    %31 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%29#0, %29#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row_partial>) outs(%30 : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %in_14: f32, %out: bf16):
      %cst_15 = arith.constant 0.000000e+00 : f32
      %36 = arith.cmpf oeq, %in_14, %cst_15 : f32
      %cst_16 = arith.constant 1.000000e+00 : f32
      %37 = arith.divf %cst_16, %in_14 : f32
      %38 = arith.select %36, %cst_15, %37 : f32
      %39 = arith.mulf %in, %38 : f32
      %40 = arith.truncf %39 : f32 to bf16
      linalg.yield %40 : bf16
    } -> tensor<64x64xbf16, #acc>
    %32 = tensor.empty() : tensor<64xf32, #row>
    %33 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%29#1, %29#2 : tensor<64xf32, #row>, tensor<64xf32, #row_partial>) outs(%32 : tensor<64xf32, #row>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %cst_15 = arith.constant 0.000000e+00 : f32
      %36 = arith.cmpf oeq, %in_14, %cst_15 : f32
      %cst_16 = arith.constant 1.000000e+00 : f32
      %37 = arith.mulf %in, %cst_16 : f32
      %38 = math.log %in_14 : f32
      %39 = arith.addf %37, %38 : f32
      %cst_17 = arith.constant 0xFF800000 : f32
      %40 = arith.select %36, %cst_17, %39 : f32
      linalg.yield %40 : f32
    } -> tensor<64xf32, #row>
    %34 = arith.subi %dim_1, %3 : index
    %c64_13 = arith.constant 64 : index
    %35 = arith.minsi %c64_13, %34 : index
    flash.tile_store o %31, %o[%batch, %head, %3] rows %35 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %33, %lse[%batch, %head, %3] rows %35 : tensor<64xf32, #row> -> !L
  }
  return
}
