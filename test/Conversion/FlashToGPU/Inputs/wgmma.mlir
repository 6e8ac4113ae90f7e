// The input of ../wgmma.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it, printed with type and layout
// aliases, the function's own argument names and the grid's axes named
// (qblock, head, batch); nothing else is edited, so flash-to-gpu's output is
// the named pipeline's. Regenerate a function from its quoted op when the
// tile level changes.

!B = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
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
// @wg, from:
//   flash.attention ins(%q, %k, %v : !B, !B, !B) outs(%o : !B)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
func.func @wg(%q: !B, %k: !B, %v: !B, %o: !B) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %q, %c0 : !B
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %q, %c1 : !B
  %c2 = arith.constant 2 : index
  %dim_1 = memref.dim %q, %c2 : !B
  %c2_2 = arith.constant 2 : index
  %dim_3 = memref.dim %k, %c2_2 : !B
  %c1_4 = arith.constant 1 : index
  %dim_5 = memref.dim %k, %c1_4 : !B
  %0 = arith.divui %dim_0, %dim_5 : index
  %c64 = arith.constant 64 : index
  %1 = arith.ceildivsi %dim_1, %c64 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>, scale = 1.250000e-01 : f32} {
    %2 = arith.divui %head, %0 : index
    %c64_6 = arith.constant 64 : index
    %3 = arith.muli %qblock, %c64_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !B -> tensor<64x64xbf16, #smem>
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
    %c0_9 = arith.constant 0 : index
    %12 = arith.ceildivsi %dim_3, %c32 : index
    %13 = arith.maxsi %12, %c0_9 : index
    %c0_10 = arith.constant 0 : index
    %14 = arith.floordivsi %c0_10, %c32 : index
    %15 = arith.minsi %14, %13 : index
    %c0_11 = arith.constant 0 : index
    %16 = arith.remsi %dim_3, %c32 : index
    %17 = arith.cmpi ne, %16, %c0_11 : index
    %18 = arith.extui %17 : i1 to i64
    %19 = arith.index_cast %18 : i64 to index
    %20 = arith.subi %13, %19 : index
    %21 = arith.maxsi %15, %20 : index
    %22 = flash.pipeline_prologue stages 2
    %23:4 = flash.kv_loop masked_right %arg7 = %21 to %13 reversed iter_args(%arg8 = %6, %arg9 = %8, %arg10 = %10, %arg11 = %22) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %31 = flash.pipeline_advance %arg11
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg7, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg11) : !B -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg11) : !B -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %51 = linalg.index 0 : index
        %52 = arith.addi %3, %51 : index
        %53 = linalg.index 1 : index
        %54 = arith.addi %32, %53 : index
        %55 = arith.subi %dim_3, %dim_1 : index
        %56 = arith.addi %52, %55 : index
        %57 = arith.cmpi slt, %54, %dim_3 : index
        %cst_16 = arith.constant 0xFF800000 : f32
        %58 = arith.select %57, %out, %cst_16 : f32
        linalg.yield %58 : f32
      } -> tensor<64x32xf32, #acc>
      %39 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%38 : tensor<64x32xf32, #acc>) outs(%arg9 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.maxnumf %in, %out : f32
        linalg.yield %51 : f32
      } -> tensor<64xf32, #row>
      %cst_15 = arith.constant 0.180336878 : f32
      %40 = tensor.empty() : tensor<64xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%39 : tensor<64xf32, #row>) outs(%40 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %52 = arith.cmpf oeq, %in, %cst_17 : f32
        %53 = arith.select %52, %cst_16, %51 : f32
        linalg.yield %53 : f32
      } -> tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<64xf32, #row>) outs(%38 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.negf %in : f32
        %52 = math.fma %out, %cst_15, %51 : f32
        %53 = math.exp2 %52 : f32
        linalg.yield %53 : f32
      } -> tensor<64x32xf32, #acc>
      %43 = tensor.empty() : tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %41 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%43 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %51 = arith.negf %in_16 : f32
        %52 = math.fma %in, %cst_15, %51 : f32
        %53 = math.exp2 %52 : f32
        linalg.yield %53 : f32
      } -> tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%arg10 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.mulf %out, %in : f32
        linalg.yield %51 : f32
      } -> tensor<64xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%42 : tensor<64x32xf32, #acc>) outs(%45 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.addf %out, %in : f32
        linalg.yield %51 : f32
      } -> tensor<64xf32, #row_partial>
      %47 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%arg8 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %51 = arith.mulf %out, %in : f32
        linalg.yield %51 : f32
      } -> tensor<64x64xf32, #acc>
      %48 = tensor.empty() : tensor<64x32xbf16, #acc>
      %49 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64x32xf32, #acc>) outs(%48 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %51 = arith.truncf %in : f32 to bf16
        linalg.yield %51 : bf16
      } -> tensor<64x32xbf16, #acc>
      %50 = linalg.matmul ins(%49, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%47 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %50, %39, %46, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %24:4 = flash.kv_loop main %arg7 = %15 to %21 reversed iter_args(%arg8 = %23#0, %arg9 = %23#1, %arg10 = %23#2, %arg11 = %23#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %31 = flash.pipeline_advance %arg11
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg7, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg11) : !B -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg11) : !B -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<64x32xf32, #acc>) outs(%arg9 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.maxnumf %in, %out : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row>
      %cst_15 = arith.constant 0.180336878 : f32
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
      %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %40 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%42 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %50 = arith.negf %in_16 : f32
        %51 = math.fma %in, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%43 : tensor<64xf32, #row>) outs(%arg10 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%44 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.addf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<64xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64xf32, #row>) outs(%arg8 : tensor<64x64xf32, #acc>) {
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
      %49 = linalg.matmul ins(%48, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%46 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %49, %38, %45, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %25 = tensor.empty() : tensor<64x64xbf16, #acc>
    %26 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%24#0, %24#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row_partial>) outs(%25 : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: bf16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %31 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %32 = arith.divf %cst_15, %in_13 : f32
      %33 = arith.select %31, %cst_14, %32 : f32
      %34 = arith.mulf %in, %33 : f32
      %35 = arith.truncf %34 : f32 to bf16
      linalg.yield %35 : bf16
    } -> tensor<64x64xbf16, #acc>
    %27 = tensor.empty() : tensor<64xf32, #row>
    %28 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%24#1, %24#2 : tensor<64xf32, #row>, tensor<64xf32, #row_partial>) outs(%27 : tensor<64xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %31 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.250000e-01 : f32
      %32 = arith.mulf %in, %cst_15 : f32
      %33 = math.log %in_13 : f32
      %34 = arith.addf %32, %33 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %35 = arith.select %31, %cst_16, %34 : f32
      linalg.yield %35 : f32
    } -> tensor<64xf32, #row>
    %29 = arith.subi %dim_1, %3 : index
    %c64_12 = arith.constant 64 : index
    %30 = arith.minsi %c64_12, %29 : index
    flash.tile_store o %26, %o[%batch, %head, %3] rows %30 : tensor<64x64xbf16, #acc> -> !B
  }
  return
}

// -----

!F = memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>
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
// @wg_f16, from:
//   flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
//       {causal, config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true>}
func.func @wg_f16(%q: !F, %k: !F, %v: !F, %o: !F) {
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
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {causal, config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true>, scale = 0.0883883461 : f32} {
    %2 = arith.divui %head, %0 : index
    %c128_6 = arith.constant 128 : index
    %3 = arith.muli %qblock, %c128_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !F -> tensor<128x128xf16, #smem>
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
    %c64 = arith.constant 64 : index
    %c128_9 = arith.constant 128 : index
    %12 = arith.addi %3, %11 : index
    %13 = arith.addi %12, %c128_9 : index
    %14 = arith.minsi %dim_3, %13 : index
    %c0_10 = arith.constant 0 : index
    %15 = arith.ceildivsi %14, %c64 : index
    %16 = arith.maxsi %15, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %17 = arith.floordivsi %c0_11, %c64 : index
    %18 = arith.minsi %17, %16 : index
    %c3 = arith.constant 3 : index
    %19 = arith.subi %16, %c3 : index
    %20 = arith.maxsi %18, %19 : index
    %21 = flash.pipeline_prologue stages 2
    %22:4 = flash.kv_loop masked_right %arg7 = %20 to %16 reversed iter_args(%arg8 = %6, %arg9 = %8, %arg10 = %10, %arg11 = %21) -> (tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %30 = flash.pipeline_advance %arg11
      %c64_13 = arith.constant 64 : index
      %31 = arith.muli %arg7, %c64_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !F -> tensor<64x128xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !F -> tensor<64x128xf16, #smem>
      %34 = tensor.empty() : tensor<128x64xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<128x64xf32, #acc>) -> tensor<128x64xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<128x128xf16, #smem>, tensor<64x128xf16, #smem>) outs(%35 : tensor<128x64xf32, #acc>) -> tensor<128x64xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%36 : tensor<128x64xf32, #acc>) {
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
      } -> tensor<128x64xf32, #acc>
      %38 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<128x64xf32, #acc>) outs(%arg9 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.maxnumf %in, %out : f32
        linalg.yield %50 : f32
      } -> tensor<128xf32, #row>
      %cst_15 = arith.constant 0.127517432 : f32
      %39 = tensor.empty() : tensor<128xf32, #row>
      %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%38 : tensor<128xf32, #row>) outs(%39 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %in, %cst_15 : f32
        %cst_16 = arith.constant 0.000000e+00 : f32
        %cst_17 = arith.constant 0xFF800000 : f32
        %51 = arith.cmpf oeq, %in, %cst_17 : f32
        %52 = arith.select %51, %cst_16, %50 : f32
        linalg.yield %52 : f32
      } -> tensor<128xf32, #row>
      %41 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<128xf32, #row>) outs(%37 : tensor<128x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.negf %in : f32
        %51 = math.fma %out, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<128x64xf32, #acc>
      %42 = tensor.empty() : tensor<128xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg9, %40 : tensor<128xf32, #row>, tensor<128xf32, #row>) outs(%42 : tensor<128xf32, #row>) {
      ^bb0(%in: f32, %in_16: f32, %out: f32):
        %50 = arith.negf %in_16 : f32
        %51 = math.fma %in, %cst_15, %50 : f32
        %52 = math.exp2 %51 : f32
        linalg.yield %52 : f32
      } -> tensor<128xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%43 : tensor<128xf32, #row>) outs(%arg10 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<128xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<128x64xf32, #acc>) outs(%44 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.addf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<128xf32, #row_partial>
      %46 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<128xf32, #row>) outs(%arg8 : tensor<128x128xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %50 = arith.mulf %out, %in : f32
        linalg.yield %50 : f32
      } -> tensor<128x128xf32, #acc>
      %47 = tensor.empty() : tensor<128x64xf16, #acc>
      %48 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<128x64xf32, #acc>) outs(%47 : tensor<128x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %50 = arith.truncf %in : f32 to f16
        linalg.yield %50 : f16
      } -> tensor<128x64xf16, #acc>
      %49 = linalg.matmul ins(%48, %33 : tensor<128x64xf16, #acc>, tensor<64x128xf16, #smem>) outs(%46 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      flash.yield %49, %38, %45, %30 : tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index
    }
    %23:4 = flash.kv_loop main %arg7 = %18 to %20 reversed iter_args(%arg8 = %22#0, %arg9 = %22#1, %arg10 = %22#2, %arg11 = %22#3) -> (tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index) {
      flash.pipeline_wait %arg11 pending 0
      flash.pipeline_prefetch %arg11 distance 1
      %30 = flash.pipeline_advance %arg11
      %c64_13 = arith.constant 64 : index
      %31 = arith.muli %arg7, %c64_13 : index
      %32 = flash.tile_load k %k[%batch, %2, %31] limit %dim_3 slot(%arg11) : !F -> tensor<64x128xf16, #smem>
      %33 = flash.tile_load v %v[%batch, %2, %31] limit %dim_3 slot(%arg11) : !F -> tensor<64x128xf16, #smem>
      %34 = tensor.empty() : tensor<128x64xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %35 = linalg.fill ins(%cst_14 : f32) outs(%34 : tensor<128x64xf32, #acc>) -> tensor<128x64xf32, #acc>
      %36 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %32 : tensor<128x128xf16, #smem>, tensor<64x128xf16, #smem>) outs(%35 : tensor<128x64xf32, #acc>) -> tensor<128x64xf32, #acc>
      %37 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<128x64xf32, #acc>) outs(%arg9 : tensor<128xf32, #row>) {
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
      %40 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<128xf32, #row>) outs(%36 : tensor<128x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.negf %in : f32
        %50 = math.fma %out, %cst_15, %49 : f32
        %51 = math.exp2 %50 : f32
        linalg.yield %51 : f32
      } -> tensor<128x64xf32, #acc>
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
      %44 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<128x64xf32, #acc>) outs(%43 : tensor<128xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.addf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<128xf32, #row_partial>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<128xf32, #row>) outs(%arg8 : tensor<128x128xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %49 = arith.mulf %out, %in : f32
        linalg.yield %49 : f32
      } -> tensor<128x128xf32, #acc>
      %46 = tensor.empty() : tensor<128x64xf16, #acc>
      %47 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<128x64xf32, #acc>) outs(%46 : tensor<128x64xf16, #acc>) {
      ^bb0(%in: f32, %out: f16):
        %49 = arith.truncf %in : f32 to f16
        linalg.yield %49 : f16
      } -> tensor<128x64xf16, #acc>
      %48 = linalg.matmul ins(%47, %33 : tensor<128x64xf16, #acc>, tensor<64x128xf16, #smem>) outs(%45 : tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
      flash.yield %48, %37, %44, %30 : tensor<128x128xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %24 = tensor.empty() : tensor<128x128xf16, #acc>
    %25 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%23#0, %23#2 : tensor<128x128xf32, #acc>, tensor<128xf32, #row_partial>) outs(%24 : tensor<128x128xf16, #acc>) {
    ^bb0(%in: f32, %in_13: f32, %out: f16):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 1.000000e+00 : f32
      %31 = arith.divf %cst_15, %in_13 : f32
      %32 = arith.select %30, %cst_14, %31 : f32
      %33 = arith.mulf %in, %32 : f32
      %34 = arith.truncf %33 : f32 to f16
      linalg.yield %34 : f16
    } -> tensor<128x128xf16, #acc>
    %26 = tensor.empty() : tensor<128xf32, #row>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%23#1, %23#2 : tensor<128xf32, #row>, tensor<128xf32, #row_partial>) outs(%26 : tensor<128xf32, #row>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %cst_14 = arith.constant 0.000000e+00 : f32
      %30 = arith.cmpf oeq, %in_13, %cst_14 : f32
      %cst_15 = arith.constant 0.0883883461 : f32
      %31 = arith.mulf %in, %cst_15 : f32
      %32 = math.log %in_13 : f32
      %33 = arith.addf %31, %32 : f32
      %cst_16 = arith.constant 0xFF800000 : f32
      %34 = arith.select %30, %cst_16, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<128xf32, #row>
    %28 = arith.subi %dim_1, %3 : index
    %c128_12 = arith.constant 128 : index
    %29 = arith.minsi %c128_12, %28 : index
    flash.tile_store o %25, %o[%batch, %head, %3] rows %29 : tensor<128x128xf16, #acc> -> !F
  }
  return
}
