// The input of ../pipeline.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it, printed with type and layout
// aliases, the function's own argument names and the grid's axes named
// (qblock, head, batch); nothing else is edited, so flash-to-gpu's output is
// the named pipeline's. Regenerate a function from its quoted op when the
// tile level changes.

!S = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#row_partial = #flash.frag<row_partial>
#row = #flash.frag<row>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
// @two, from:
//   flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
func.func @two(%q: !S, %k: !S, %v: !S, %o: !S) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !S
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !S
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !S
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !S
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !S
  %0 = arith.divui %dim_0, %dim_5 : index
  %c32 = arith.constant 32 : index
  %1 = arith.ceildivsi %dim_1, %c32 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>, scale = 0.176776692 : f32} {
    %2 = arith.divui %head, %0 : index
    %c32_6 = arith.constant 32 : index
    %3 = arith.muli %qblock, %c32_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !S -> tensor<32x32xf16, #smem>
    %5 = tensor.empty() : tensor<32x32xf32, #acc>
    %cst = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
    %7 = tensor.empty() : tensor<32xf32, #row>
    %cst_7 = arith.constant 0xFF800000 : f32
    %8 = linalg.fill ins(%cst_7 : f32) outs(%7 : tensor<32xf32, #row>) -> tensor<32xf32, #row>
    %9 = tensor.empty() : tensor<32xf32, #row_partial>
    %cst_8 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<32xf32, #row_partial>) -> tensor<32xf32, #row_partial>
    %11 = arith.subi %dim_3, %dim_1 : index
    %c16 = arith.constant 16 : index
    %c32_9 = arith.constant 32 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c32_9 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_10 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c16 : index
    %16 = arith.maxsi %15, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %17 = arith.floordivsi %c0_11, %c16 : index
    %18 = arith.minsi %17, %16 : index
    %c3 = arith.constant 3 : index
    %19 = arith.subi %16, %c3 : index
    %20 = arith.maxsi %18, %19 : index
    %21 = flash.pipeline_prologue stages 2
    %22:4 = flash.kv_loop masked_right %arg7 = %20 to %16 reversed iter_args(%arg8 = %6, %arg9 = %8, %arg10 = %10, %arg11 = %21) -> (tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %30 = flash.pipeline_advance %arg11
      %c16_13 = arith.constant 16 : index
      %31 = arith.muli %arg7, %c16_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %34 = tensor.empty() : tensor<32x16xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<32x32xf16, #smem>, tensor<16x32xf16, #smem>) outs(%35 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%36 : tensor<32x16xf32, #acc>) {
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
      } -> tensor<32x16xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<32x16xf32, #acc>) outs(%arg9 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.maxnumf %in, %out : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row>
      %cst_15 = arith.constant 0.255034864 : f32
      %39 = tensor.empty() : tensor<32xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%38 : tensor<32xf32, #row>) outs(%39 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %51 = arith.cmpf oeq, %in, %cst_17 : f32
        %52 = arith.select %51, %cst_16, %50 : f32
        linalg.yield %52 : f32
      } -> tensor<32xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<32xf32, #row>) outs(%37 : tensor<32x16xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.negf %in : f32
        %51 = math.fma %out, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<32x16xf32, #acc>
      %42 = tensor.empty() : tensor<32xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %40 : tensor<32xf32, #row>, tensor<32xf32, #row>) outs(%42 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %50 = arith.negf %in_16 : f32
        %51 = math.fma %in, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<32xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%43 : tensor<32xf32, #row>) outs(%arg10 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<32x16xf32, #acc>) outs(%44 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.addf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<32xf32, #row>) outs(%arg8 : tensor<32x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32x32xf32, #acc>
      %47 = tensor.empty() : tensor<32x16xf16, #acc>
      %48 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<32x16xf32, #acc>) outs(%47 : tensor<32x16xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %50 = arith.truncf %in : f32 to f16
        linalg.yield %50 : f16
      } -> tensor<32x16xf16, #acc>
      %49 = linalg.matmul ins(%48, %33 : tensor<32x16xf16, #acc>, tensor<16x32xf16, #smem>) outs(%46 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
      flash.yield %49, %38, %45, %30 : tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index
    }
    %23:4 = flash.kv_loop main %arg7 = %18 to %20 reversed iter_args(%arg8 = %22#0, %arg9 = %22#1, %arg10 = %22#2, %arg11 = %22#3) -> (tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %30 = flash.pipeline_advance %arg11
      %c16_13 = arith.constant 16 : index
      %31 = arith.muli %arg7, %c16_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %34 = tensor.empty() : tensor<32x16xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<32x32xf16, #smem>, tensor<16x32xf16, #smem>) outs(%35 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<32x16xf32, #acc>) outs(%arg9 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.maxnumf %in, %out : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row>
      %cst_15 = arith.constant 0.255034864 : f32
      %38 = tensor.empty() : tensor<32xf32, #row>
      %39 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%37 : tensor<32xf32, #row>) outs(%38 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %50 = arith.cmpf oeq, %in, %cst_17 : f32
        %51 = arith.select %50, %cst_16, %49 : f32
        linalg.yield %51 : f32
      } -> tensor<32xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<32xf32, #row>) outs(%36 : tensor<32x16xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.negf %in : f32
        %50 = math.fma %out, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<32x16xf32, #acc>
      %41 = tensor.empty() : tensor<32xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %39 : tensor<32xf32, #row>, tensor<32xf32, #row>) outs(%41 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %49 = arith.negf %in_16 : f32
        %50 = math.fma %in, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<32xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<32xf32, #row>) outs(%arg10 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row_partial>
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<32x16xf32, #acc>) outs(%43 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.addf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<32xf32, #row>) outs(%arg8 : tensor<32x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32x32xf32, #acc>
      %46 = tensor.empty() : tensor<32x16xf16, #acc>
      %47 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<32x16xf32, #acc>) outs(%46 : tensor<32x16xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %49 = arith.truncf %in : f32 to f16
        linalg.yield %49 : f16
      } -> tensor<32x16xf16, #acc>
      %48 = linalg.matmul ins(%47, %33 : tensor<32x16xf16, #acc>, tensor<16x32xf16, #smem>) outs(%45 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
      flash.yield %48, %37, %44, %30 : tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %24 = tensor.empty() : tensor<32x32xf16, #acc>
    %25 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%23#0, %23#2 : tensor<32x32xf32, #acc>, tensor<32xf32, #row_partial>) outs(%24 : tensor<32x32xf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: f16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %31 = arith.divf %cst_15, %in_13 : f32
      %32 = arith.select %30, %cst_14, %31 : f32
      %33 = arith.mulf %in, %32 : f32
      %34 = arith.truncf %33 : f32 to f16
      linalg.yield %34 : f16
    } -> tensor<32x32xf16, #acc>
    %26 = tensor.empty() : tensor<32xf32, #row>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%23#1, %23#2 : tensor<32xf32, #row>, tensor<32xf32, #row_partial>) outs(%26 : tensor<32xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 0.176776692 : f32
      %31 = arith.mulf %in, %cst_15 : f32
      %32 = math.log %in_13 : f32
      %33 = arith.addf %31, %32 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %34 = arith.select %30, %cst_16, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<32xf32, #row>
    %28 = arith.subi %dim_1, %3 : index
    %c32_12 = arith.constant 32 : index
    %29 = arith.minsi %c32_12, %28 : index
    flash.tile_store o %25, %o[%batch, %head, %3] rows %29 : tensor<32x32xf16, #acc> -> !S
  }
  return
}

// -----

!S = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
#smem = #flash.frag<smem, mma_sync>
#acc = #flash.frag<acc, mma_sync>
#row_partial = #flash.frag<row_partial>
#row = #flash.frag<row>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
// @three, from:
//   flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 3>}
func.func @three(%q: !S, %k: !S, %v: !S, %o: !S) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !S
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !S
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !S
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !S
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !S
  %0 = arith.divui %dim_0, %dim_5 : index
  %c32 = arith.constant 32 : index
  %1 = arith.ceildivsi %dim_1, %c32 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 3>, scale = 0.176776692 : f32} {
    %2 = arith.divui %head, %0 : index
    %c32_6 = arith.constant 32 : index
    %3 = arith.muli %qblock, %c32_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !S -> tensor<32x32xf16, #smem>
    %5 = tensor.empty() : tensor<32x32xf32, #acc>
    %cst = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
    %7 = tensor.empty() : tensor<32xf32, #row>
    %cst_7 = arith.constant 0xFF800000 : f32
    %8 = linalg.fill ins(%cst_7 : f32) outs(%7 : tensor<32xf32, #row>) -> tensor<32xf32, #row>
    %9 = tensor.empty() : tensor<32xf32, #row_partial>
    %cst_8 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<32xf32, #row_partial>) -> tensor<32xf32, #row_partial>
    %11 = arith.subi %dim_3, %dim_1 : index
    %c16 = arith.constant 16 : index
    %c32_9 = arith.constant 32 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c32_9 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_10 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c16 : index
    %16 = arith.maxsi %15, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %17 = arith.floordivsi %c0_11, %c16 : index
    %18 = arith.minsi %17, %16 : index
    %c3 = arith.constant 3 : index
    %19 = arith.subi %16, %c3 : index
    %20 = arith.maxsi %18, %19 : index
    %21 = flash.pipeline_prologue stages 3
    %22:4 = flash.kv_loop masked_right %arg7 = %20 to %16 reversed iter_args(%arg8 = %6, %arg9 = %8, %arg10 = %10, %arg11 = %21) -> (tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 1
      flash.pipeline_prefetch %arg11 distance 2
      %30 = flash.pipeline_advance %arg11
      %c16_13 = arith.constant 16 : index
      %31 = arith.muli %arg7, %c16_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %34 = tensor.empty() : tensor<32x16xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<32x32xf16, #smem>, tensor<16x32xf16, #smem>) outs(%35 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%36 : tensor<32x16xf32, #acc>) {
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
      } -> tensor<32x16xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<32x16xf32, #acc>) outs(%arg9 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.maxnumf %in, %out : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row>
      %cst_15 = arith.constant 0.255034864 : f32
      %39 = tensor.empty() : tensor<32xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%38 : tensor<32xf32, #row>) outs(%39 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %51 = arith.cmpf oeq, %in, %cst_17 : f32
        %52 = arith.select %51, %cst_16, %50 : f32
        linalg.yield %52 : f32
      } -> tensor<32xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<32xf32, #row>) outs(%37 : tensor<32x16xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.negf %in : f32
        %51 = math.fma %out, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<32x16xf32, #acc>
      %42 = tensor.empty() : tensor<32xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %40 : tensor<32xf32, #row>, tensor<32xf32, #row>) outs(%42 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %50 = arith.negf %in_16 : f32
        %51 = math.fma %in, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<32xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%43 : tensor<32xf32, #row>) outs(%arg10 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<32x16xf32, #acc>) outs(%44 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.addf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<32xf32, #row>) outs(%arg8 : tensor<32x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<32x32xf32, #acc>
      %47 = tensor.empty() : tensor<32x16xf16, #acc>
      %48 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<32x16xf32, #acc>) outs(%47 : tensor<32x16xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %50 = arith.truncf %in : f32 to f16
        linalg.yield %50 : f16
      } -> tensor<32x16xf16, #acc>
      %49 = linalg.matmul ins(%48, %33 : tensor<32x16xf16, #acc>, tensor<16x32xf16, #smem>) outs(%46 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
      flash.yield %49, %38, %45, %30 : tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index
    }
    %23:4 = flash.kv_loop main %arg7 = %18 to %20 reversed iter_args(%arg8 = %22#0, %arg9 = %22#1, %arg10 = %22#2, %arg11 = %22#3) -> (tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 1
      flash.pipeline_prefetch %arg11 distance 2
      %30 = flash.pipeline_advance %arg11
      %c16_13 = arith.constant 16 : index
      %31 = arith.muli %arg7, %c16_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !S -> tensor<16x32xf16, #smem>
      %34 = tensor.empty() : tensor<32x16xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<32x32xf16, #smem>, tensor<16x32xf16, #smem>) outs(%35 : tensor<32x16xf32, #acc>) -> tensor<32x16xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<32x16xf32, #acc>) outs(%arg9 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.maxnumf %in, %out : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row>
      %cst_15 = arith.constant 0.255034864 : f32
      %38 = tensor.empty() : tensor<32xf32, #row>
      %39 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%37 : tensor<32xf32, #row>) outs(%38 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %50 = arith.cmpf oeq, %in, %cst_17 : f32
        %51 = arith.select %50, %cst_16, %49 : f32
        linalg.yield %51 : f32
      } -> tensor<32xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<32xf32, #row>) outs(%36 : tensor<32x16xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.negf %in : f32
        %50 = math.fma %out, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<32x16xf32, #acc>
      %41 = tensor.empty() : tensor<32xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %39 : tensor<32xf32, #row>, tensor<32xf32, #row>) outs(%41 : tensor<32xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %49 = arith.negf %in_16 : f32
        %50 = math.fma %in, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<32xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<32xf32, #row>) outs(%arg10 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row_partial>
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<32x16xf32, #acc>) outs(%43 : tensor<32xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.addf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<32xf32, #row>) outs(%arg8 : tensor<32x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<32x32xf32, #acc>
      %46 = tensor.empty() : tensor<32x16xf16, #acc>
      %47 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<32x16xf32, #acc>) outs(%46 : tensor<32x16xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %49 = arith.truncf %in : f32 to f16
        linalg.yield %49 : f16
      } -> tensor<32x16xf16, #acc>
      %48 = linalg.matmul ins(%47, %33 : tensor<32x16xf16, #acc>, tensor<16x32xf16, #smem>) outs(%45 : tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc>
      flash.yield %48, %37, %44, %30 : tensor<32x32xf32, #acc>, tensor<32xf32, #row>, tensor<32xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %24 = tensor.empty() : tensor<32x32xf16, #acc>
    %25 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%23#0, %23#2 : tensor<32x32xf32, #acc>, tensor<32xf32, #row_partial>) outs(%24 : tensor<32x32xf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: f16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %31 = arith.divf %cst_15, %in_13 : f32
      %32 = arith.select %30, %cst_14, %31 : f32
      %33 = arith.mulf %in, %32 : f32
      %34 = arith.truncf %33 : f32 to f16
      linalg.yield %34 : f16
    } -> tensor<32x32xf16, #acc>
    %26 = tensor.empty() : tensor<32xf32, #row>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%23#1, %23#2 : tensor<32xf32, #row>, tensor<32xf32, #row_partial>) outs(%26 : tensor<32xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 0.176776692 : f32
      %31 = arith.mulf %in, %cst_15 : f32
      %32 = math.log %in_13 : f32
      %33 = arith.addf %31, %32 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %34 = arith.select %30, %cst_16, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<32xf32, #row>
    %28 = arith.subi %dim_1, %3 : index
    %c32_12 = arith.constant 32 : index
    %29 = arith.minsi %c32_12, %28 : index
    flash.tile_store o %25, %o[%batch, %head, %3] rows %29 : tensor<32x32xf16, #acc> -> !S
  }
  return
}
