// The input of ../producer.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it, printed with type and layout
// aliases, the function's own argument names and the grid's axes named
// (qblock, head, batch); nothing else is edited, so flash-to-gpu's output is
// the named pipeline's. Regenerate a function from its quoted op when the
// tile level changes.

!F = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
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
// @ws, from:
//   flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
//       {causal, config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
func.func @ws(%q: !F, %k: !F, %v: !F, %o: !F) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !F
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !F
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !F
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !F
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !F
  %0 = arith.divui %dim_0, %dim_5 : index
  %c128 = arith.constant 128 : index
  %1 = arith.ceildivsi %dim_1, %c128 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {causal, config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>, scale = 0.0883883461 : f32} {
    %2 = arith.divui %head, %0 : index
    %c128_6 = arith.constant 128 : index
    %3 = arith.muli %qblock, %c128_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !F -> tensor<128x128xbf16, #smem>
    %5 = tensor.empty() : tensor<128x128xf32, #acc>
    %cst = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
    %7 = tensor.empty() : tensor<128xf32, #row>
    %cst_7 = arith.constant 0xFF800000 : f32
    %8 = linalg.fill ins(%cst_7 : f32) outs(%7 : tensor<128xf32, #row>) -> tensor<128xf32, #row>
    %9 = tensor.empty() : tensor<128xf32, #row_partial>
    %cst_8 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<128xf32, #row_partial>) -> tensor<128xf32, #row_partial>
    %11 = arith.subi %dim_3, %dim_1 : index
    %c96 = arith.constant 96 : index
    %c128_9 = arith.constant 128 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c128_9 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_10 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c96 : index
    %16 = arith.maxsi %15, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %17 = arith.floordivsi %c0_11, %c96 : index
    %18 = arith.minsi %17, %16 : index
    %c3 = arith.constant 3 : index
    %19 = arith.subi %16, %c3 : index
    %20 = arith.maxsi %18, %19 : index
    %slot, %phase = flash.pipeline_producer stages 3
    %21:5 = flash.kv_loop masked_right %arg7 = %20 to %16 reversed iter_args(%arg8 = %6, %arg9 = %8, %arg10 = %10, %arg11 = %slot, %arg12 = %phase) -> (tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index, index) {
      flash.pipeline_acquire %arg11 phase %arg12
      %29:2 = flash.pipeline_advance %arg11 phase %arg12
      %c96_13 = arith.constant 96 : index
      %30 = arith.muli %arg7, %c96_13 : index
      %31 = flash.tile_load k %k[%batch, %2, %30] limit %dim_3 slot(%arg11) : !F -> tensor<96x128xbf16, #smem>
      %32 = flash.tile_load v %v[%batch, %2, %30] limit %dim_3 slot(%arg11) : !F -> tensor<96x128xbf16, #smem>
      %33 = tensor.empty() : tensor<128x96xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %34 = linalg.fill ins(%cst_14 : f32) outs(%33 : tensor<128x96xf32, #acc>) -> tensor<128x96xf32, #acc>
      %35 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %31 : tensor<128x128xbf16, #smem>, tensor<96x128xbf16, #smem>) outs(%34 : tensor<128x96xf32, #acc>) -> tensor<128x96xf32, #acc>
      %36 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%35 : tensor<128x96xf32, #acc>) {
      ^bb0(%out: f32):
        %49 = linalg.index 0 : index
        %50 = arith.addi %3, %49 : index
        %51 = linalg.index 1 : index
        %52 = arith.addi %30, %51 : index
        %53 = arith.subi %dim_3, %dim_1 : index
        %54 = arith.addi %50, %53 : index
        %55 = arith.cmpi slt, %52, %dim_3 : index
        %56 = arith.cmpi sle, %52, %54 : index
        %57 = arith.andi %55, %56 : i1
        %cst_16 = arith.constant 0xFF800000 : f32
        %58 = arith.select %57, %out, %cst_16 : f32
        linalg.yield %58 : f32
      } -> tensor<128x96xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<128x96xf32, #acc>) outs(%arg9 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.maxnumf %in, %out : f32
        linalg.yield %49 : f32
      } -> tensor<128xf32, #row>
      %cst_15 = arith.constant 0.127517432 : f32
      %38 = tensor.empty() : tensor<128xf32, #row>
      %39 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%37 : tensor<128xf32, #row>) outs(%38 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %50 = arith.cmpf oeq, %in, %cst_17 : f32
        %51 = arith.select %50, %cst_16, %49 : f32
        linalg.yield %51 : f32
      } -> tensor<128xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<128xf32, #row>) outs(%36 : tensor<128x96xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.negf %in : f32
        %50 = math.fma %out, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<128x96xf32, #acc>
      %41 = tensor.empty() : tensor<128xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %39 : tensor<128xf32, #row>, tensor<128xf32, #row>) outs(%41 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %49 = arith.negf %in_16 : f32
        %50 = math.fma %in, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<128xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<128xf32, #row>) outs(%arg10 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<128xf32, #row_partial>
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<128x96xf32, #acc>) outs(%43 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.addf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<128xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<128xf32, #row>) outs(%arg8 : tensor<128x128xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<128x128xf32, #acc>
      %46 = tensor.empty() : tensor<128x96xbf16, #acc>
      %47 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<128x96xf32, #acc>) outs(%46 : tensor<128x96xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %49 = arith.truncf %in : f32 to bf16
        linalg.yield %49 : bf16
      } -> tensor<128x96xbf16, #acc>
      %48 = linalg.matmul ins(%47, %32 : tensor<128x96xbf16, #acc>, tensor<96x128xbf16, #smem>) outs(%45 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      flash.pipeline_release %arg11
      flash.yield %48, %37, %44, %29#0, %29#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index, index
    }
    %22:5 = flash.kv_loop main %arg7 = %18 to %20 reversed iter_args(%arg8 = %21#0, %arg9 = %21#1, %arg10 = %21#2, %arg11 = %21#3, %arg12 = %21#4) -> (tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index, index) {
      flash.pipeline_acquire %arg11 phase %arg12
      %29:2 = flash.pipeline_advance %arg11 phase %arg12
      %c96_13 = arith.constant 96 : index
      %30 = arith.muli %arg7, %c96_13 : index
      %31 = flash.tile_load k %k[%batch, %2, %30] limit %dim_3 slot(%arg11) : !F -> tensor<96x128xbf16, #smem>
      %32 = flash.tile_load v %v[%batch, %2, %30] limit %dim_3 slot(%arg11) : !F -> tensor<96x128xbf16, #smem>
      %33 = tensor.empty() : tensor<128x96xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %34 = linalg.fill ins(%cst_14 : f32) outs(%33 : tensor<128x96xf32, #acc>) -> tensor<128x96xf32, #acc>
      %35 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %31 : tensor<128x128xbf16, #smem>, tensor<96x128xbf16, #smem>) outs(%34 : tensor<128x96xf32, #acc>) -> tensor<128x96xf32, #acc>
      %36 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%35 : tensor<128x96xf32, #acc>) outs(%arg9 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.maxnumf %in, %out : f32
        linalg.yield %48 : f32
      } -> tensor<128xf32, #row>
      %cst_15 = arith.constant 0.127517432 : f32
      %37 = tensor.empty() : tensor<128xf32, #row>
      %38 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%36 : tensor<128xf32, #row>) outs(%37 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %49 = arith.cmpf oeq, %in, %cst_17 : f32
        %50 = arith.select %49, %cst_16, %48 : f32
        linalg.yield %50 : f32
      } -> tensor<128xf32, #row>
      %39 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<128xf32, #row>) outs(%35 : tensor<128x96xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.negf %in : f32
        %49 = math.fma %out, %cst_15, %48 : f32
        %50 = math.exp2 %49 : f32
        linalg.yield %50 : f32
      } -> tensor<128x96xf32, #acc>
      %40 = tensor.empty() : tensor<128xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %38 : tensor<128xf32, #row>, tensor<128xf32, #row>) outs(%40 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %48 = arith.negf %in_16 : f32
        %49 = math.fma %in, %cst_15, %48 : f32
        %50 = math.exp2 %49 : f32
        linalg.yield %50 : f32
      } -> tensor<128xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%41 : tensor<128xf32, #row>) outs(%arg10 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.mulf %out, %in : f32
        linalg.yield %48 : f32
      } -> tensor<128xf32, #row_partial>
      %43 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<128x96xf32, #acc>) outs(%42 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.addf %out, %in : f32
        linalg.yield %48 : f32
      } -> tensor<128xf32, #row_partial>
      %44 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<128xf32, #row>) outs(%arg8 : tensor<128x128xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %48 = arith.mulf %out, %in : f32
        linalg.yield %48 : f32
      } -> tensor<128x128xf32, #acc>
      %45 = tensor.empty() : tensor<128x96xbf16, #acc>
      %46 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<128x96xf32, #acc>) outs(%45 : tensor<128x96xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %48 = arith.truncf %in : f32 to bf16
        linalg.yield %48 : bf16
      } -> tensor<128x96xbf16, #acc>
      %47 = linalg.matmul ins(%46, %32 : tensor<128x96xbf16, #acc>, tensor<96x128xbf16, #smem>) outs(%44 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      flash.pipeline_release %arg11
      flash.yield %47, %36, %43, %29#0, %29#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index, index
    }
    flash.pipeline_drain
    %23 = tensor.empty() : tensor<128x128xbf16, #acc>
    %24 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%22#0, %22#2 : tensor<128x128xf32, #acc>, tensor<128xf32, #row_partial>) outs(%23 : tensor<128x128xbf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: bf16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %29 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %30 = arith.divf %cst_15, %in_13 : f32
      %31 = arith.select %29, %cst_14, %30 : f32
      %32 = arith.mulf %in, %31 : f32
      %33 = arith.truncf %32 : f32 to bf16
      linalg.yield %33 : bf16
    } -> tensor<128x128xbf16, #acc>
    %25 = tensor.empty() : tensor<128xf32, #row>
    %26 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%22#1, %22#2 : tensor<128xf32, #row>, tensor<128xf32, #row_partial>) outs(%25 : tensor<128xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %29 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 0.0883883461 : f32
      %30 = arith.mulf %in, %cst_15 : f32
      %31 = math.log %in_13 : f32
      %32 = arith.addf %30, %31 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %33 = arith.select %29, %cst_16, %32 : f32
      linalg.yield %33 : f32
    } -> tensor<128xf32, #row>
    %27 = arith.subi %dim_1, %3 : index
    %c128_12 = arith.constant 128 : index
    %28 = arith.minsi %c128_12, %27 : index
    flash.tile_store o %24, %o[%batch, %head, %3] rows %28 : tensor<128x128xbf16, #acc> -> !F
  }
  return
}
