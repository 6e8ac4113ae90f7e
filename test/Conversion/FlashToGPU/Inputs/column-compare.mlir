// The input of ../column-compare.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it with `key_bounds = false` in its
// config, printed with type and layout aliases, the function's own argument
// names and the grid's axes named (qblock, head, batch); nothing else is
// edited. Regenerate a function from its quoted op when the
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
// @prefix_lm, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %causal = arith.cmpi sge, %i, %j : index
//         %pre = arith.cmpi sgt, %pbi, %j : index
//         %vis = arith.ori %causal, %pre : i1
//         flash.yield %vis : i1
//       }
func.func @prefix_lm(%q: !T, %k: !T, %v: !T, %p: memref<?xi32>, %o: !T, %lse: !L) {
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
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true, key_bounds = false>, scale = 1.250000e-01 : f32} {
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
    %23:4 = flash.kv_loop masked_right %arg9 = %21 to %13 reversed iter_args(%arg10 = %6, %arg11 = %8, %arg12 = %10, %arg13 = %22) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %c1_16 = arith.constant 1 : index
      %39 = arith.subi %dim_3, %c1_16 : index
      %40 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = arith.minsi %55, %38 : index
        %57 = linalg.index 1 : index
        %58 = arith.addi %32, %57 : index
        %59 = arith.minsi %58, %39 : index
        %60 = memref.load %p[%batch] : memref<?xi32>
        %61 = arith.index_cast %60 : i32 to index
        %62 = arith.cmpi sge, %56, %59 : index
        %63 = arith.cmpi sgt, %61, %59 : index
        %64 = arith.ori %62, %63 : i1
        %cst_18 = arith.constant 0xFF800000 : f32
        %65 = arith.select %64, %out, %cst_18 : f32
        linalg.yield %65 : f32
      } -> tensor<64x32xf32, #acc>
      %41 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%40 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = linalg.index 1 : index
        %57 = arith.addi %32, %56 : index
        %58 = arith.subi %dim_3, %dim_1 : index
        %59 = arith.addi %55, %58 : index
        %60 = arith.cmpi slt, %57, %dim_3 : index
        %cst_18 = arith.constant 0xFF800000 : f32
        %61 = arith.select %60, %out, %cst_18 : f32
        linalg.yield %61 : f32
      } -> tensor<64x32xf32, #acc>
      %42 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.maxnumf %in, %out : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %cst_17 = arith.constant 0.180336878 : f32
      %43 = tensor.empty() : tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%43 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %in, %cst_17 : f32
        %cst_18 = arith.constant 0.000000e+00 : f32
        %cst_19 = arith.constant 0xFF800000 : f32
        %55 = arith.cmpf oeq, %in, %cst_19 : f32
        %56 = arith.select %55, %cst_18, %54 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%41 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.negf %in : f32
        %55 = math.fma %out, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64x32xf32, #acc>
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %44 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_18: f32, %out: f32):
        %54 = arith.negf %in_18 : f32
        %55 = math.fma %in, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %49 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%48 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.addf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %50 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64x64xf32, #acc>
      %51 = tensor.empty() : tensor<64x32xbf16, #acc>
      %52 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %54 = arith.truncf %in : f32 to bf16
        linalg.yield %54 : bf16
      } -> tensor<64x32xbf16, #acc>
      %53 = linalg.matmul ins(%52, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%50 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %53, %42, %49, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %24:4 = flash.kv_loop main %arg9 = %15 to %21 reversed iter_args(%arg10 = %23#0, %arg11 = %23#1, %arg12 = %23#2, %arg13 = %23#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %39 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %52 = linalg.index 0 : index
        %53 = arith.addi %3, %52 : index
        %54 = arith.minsi %53, %38 : index
        %55 = linalg.index 1 : index
        %56 = arith.addi %32, %55 : index
        %57 = memref.load %p[%batch] : memref<?xi32>
        %58 = arith.index_cast %57 : i32 to index
        %59 = arith.cmpi sge, %54, %56 : index
        %60 = arith.cmpi sgt, %58, %56 : index
        %61 = arith.ori %59, %60 : i1
        %cst_17 = arith.constant 0xFF800000 : f32
        %62 = arith.select %61, %out, %cst_17 : f32
        linalg.yield %62 : f32
      } -> tensor<64x32xf32, #acc>
      %40 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.maxnumf %in, %out : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 0.180336878 : f32
      %41 = tensor.empty() : tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%40 : tensor<64xf32, #row>) outs(%41 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %53 = arith.cmpf oeq, %in, %cst_18 : f32
        %54 = arith.select %53, %cst_17, %52 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%39 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.negf %in : f32
        %53 = math.fma %out, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = tensor.empty() : tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %42 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%44 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %52 = arith.negf %in_17 : f32
        %53 = math.fma %in, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %46 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %47 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%46 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.addf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64x64xf32, #acc>
      %49 = tensor.empty() : tensor<64x32xbf16, #acc>
      %50 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%49 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %52 = arith.truncf %in : f32 to bf16
        linalg.yield %52 : bf16
      } -> tensor<64x32xbf16, #acc>
      %51 = linalg.matmul ins(%50, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%48 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %51, %40, %47, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
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
    flash.tile_store o %26, %o[%batch, %head, %3] rows %30 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %28, %lse[%batch, %head, %3] rows %30 : tensor<64xf32, #row> -> !L
  }
  return
}
// @window, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index):
//         %d = arith.subi %j, %i : index
//         %c4 = arith.constant 4 : index
//         %near = arith.cmpi sle, %d, %c4 : index
//         %c0 = arith.constant 0 : index
//         %lo = arith.cmpi sle, %j, %c0 : index
//         %vis = arith.ori %near, %lo : i1
//         flash.yield %vis : i1
//       }
func.func @window(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
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
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true, key_bounds = false>, scale = 1.250000e-01 : f32} {
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
    %23:4 = flash.kv_loop masked_right %arg8 = %21 to %13 reversed iter_args(%arg9 = %6, %arg10 = %8, %arg11 = %10, %arg12 = %22) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %31 = flash.pipeline_advance %arg12
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg8, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %c1_16 = arith.constant 1 : index
      %39 = arith.subi %dim_3, %c1_16 : index
      %40 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = arith.minsi %55, %38 : index
        %57 = linalg.index 1 : index
        %58 = arith.addi %32, %57 : index
        %59 = arith.minsi %58, %39 : index
        %60 = arith.subi %59, %56 : index
        %c4 = arith.constant 4 : index
        %61 = arith.cmpi sle, %60, %c4 : index
        %c0_18 = arith.constant 0 : index
        %62 = arith.cmpi sle, %59, %c0_18 : index
        %63 = arith.ori %61, %62 : i1
        %cst_19 = arith.constant 0xFF800000 : f32
        %64 = arith.select %63, %out, %cst_19 : f32
        linalg.yield %64 : f32
      } -> tensor<64x32xf32, #acc>
      %41 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%40 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = linalg.index 1 : index
        %57 = arith.addi %32, %56 : index
        %58 = arith.subi %dim_3, %dim_1 : index
        %59 = arith.addi %55, %58 : index
        %60 = arith.cmpi slt, %57, %dim_3 : index
        %cst_18 = arith.constant 0xFF800000 : f32
        %61 = arith.select %60, %out, %cst_18 : f32
        linalg.yield %61 : f32
      } -> tensor<64x32xf32, #acc>
      %42 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.maxnumf %in, %out : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %cst_17 = arith.constant 0.180336878 : f32
      %43 = tensor.empty() : tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%43 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %in, %cst_17 : f32
        %cst_18 = arith.constant 0.000000e+00 : f32
        %cst_19 = arith.constant 0xFF800000 : f32
        %55 = arith.cmpf oeq, %in, %cst_19 : f32
        %56 = arith.select %55, %cst_18, %54 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%41 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.negf %in : f32
        %55 = math.fma %out, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64x32xf32, #acc>
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %44 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_18: f32, %out: f32):
        %54 = arith.negf %in_18 : f32
        %55 = math.fma %in, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %49 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%48 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.addf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %50 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64x64xf32, #acc>
      %51 = tensor.empty() : tensor<64x32xbf16, #acc>
      %52 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %54 = arith.truncf %in : f32 to bf16
        linalg.yield %54 : bf16
      } -> tensor<64x32xbf16, #acc>
      %53 = linalg.matmul ins(%52, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%50 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %53, %42, %49, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %24:4 = flash.kv_loop main %arg8 = %15 to %21 reversed iter_args(%arg9 = %23#0, %arg10 = %23#1, %arg11 = %23#2, %arg12 = %23#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %31 = flash.pipeline_advance %arg12
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg8, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg12) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %39 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %52 = linalg.index 0 : index
        %53 = arith.addi %3, %52 : index
        %54 = arith.minsi %53, %38 : index
        %55 = linalg.index 1 : index
        %56 = arith.addi %32, %55 : index
        %57 = arith.subi %56, %54 : index
        %c4 = arith.constant 4 : index
        %58 = arith.cmpi sle, %57, %c4 : index
        %c0_17 = arith.constant 0 : index
        %59 = arith.cmpi sle, %56, %c0_17 : index
        %60 = arith.ori %58, %59 : i1
        %cst_18 = arith.constant 0xFF800000 : f32
        %61 = arith.select %60, %out, %cst_18 : f32
        linalg.yield %61 : f32
      } -> tensor<64x32xf32, #acc>
      %40 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<64x32xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.maxnumf %in, %out : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 0.180336878 : f32
      %41 = tensor.empty() : tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%40 : tensor<64xf32, #row>) outs(%41 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %53 = arith.cmpf oeq, %in, %cst_18 : f32
        %54 = arith.select %53, %cst_17, %52 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%39 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.negf %in : f32
        %53 = math.fma %out, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = tensor.empty() : tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg10, %42 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%44 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %52 = arith.negf %in_17 : f32
        %53 = math.fma %in, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %46 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %47 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%46 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.addf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64x64xf32, #acc>
      %49 = tensor.empty() : tensor<64x32xbf16, #acc>
      %50 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%49 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %52 = arith.truncf %in : f32 to bf16
        linalg.yield %52 : bf16
      } -> tensor<64x32xbf16, #acc>
      %51 = linalg.matmul ins(%50, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%48 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %51, %40, %47, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
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
    flash.tile_store o %26, %o[%batch, %head, %3] rows %30 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %28, %lse[%batch, %head, %3] rows %30 : tensor<64xf32, #row> -> !L
  }
  return
}
// @lower_or, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %c7 = arith.constant 7 : index
//         %late = arith.cmpi sge, %j, %i : index
//         %far = arith.cmpi sgt, %j, %c7 : index
//         %vis = arith.ori %late, %far : i1
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %at = arith.cmpi eq, %j, %pbi : index
//         %past = arith.cmpi sle, %j, %i : index
//         %either = arith.ori %at, %past : i1
//         %all = arith.andi %vis, %either : i1
//         flash.yield %all : i1
//       }
func.func @lower_or(%q: !T, %k: !T, %v: !T, %p: memref<?xi32>, %o: !T, %lse: !L) {
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
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true, key_bounds = false>, scale = 1.250000e-01 : f32} {
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
    %23:4 = flash.kv_loop masked_right %arg9 = %21 to %13 reversed iter_args(%arg10 = %6, %arg11 = %8, %arg12 = %10, %arg13 = %22) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %c1_16 = arith.constant 1 : index
      %39 = arith.subi %dim_3, %c1_16 : index
      %40 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = arith.minsi %55, %38 : index
        %57 = linalg.index 1 : index
        %58 = arith.addi %32, %57 : index
        %59 = arith.minsi %58, %39 : index
        %c7 = arith.constant 7 : index
        %60 = arith.cmpi sge, %59, %56 : index
        %61 = arith.cmpi sgt, %59, %c7 : index
        %62 = arith.ori %60, %61 : i1
        %63 = memref.load %p[%batch] : memref<?xi32>
        %64 = arith.index_cast %63 : i32 to index
        %65 = arith.cmpi eq, %59, %64 : index
        %66 = arith.cmpi sle, %59, %56 : index
        %67 = arith.ori %65, %66 : i1
        %68 = arith.andi %62, %67 : i1
        %cst_18 = arith.constant 0xFF800000 : f32
        %69 = arith.select %68, %out, %cst_18 : f32
        linalg.yield %69 : f32
      } -> tensor<64x32xf32, #acc>
      %41 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%40 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = linalg.index 1 : index
        %57 = arith.addi %32, %56 : index
        %58 = arith.subi %dim_3, %dim_1 : index
        %59 = arith.addi %55, %58 : index
        %60 = arith.cmpi slt, %57, %dim_3 : index
        %cst_18 = arith.constant 0xFF800000 : f32
        %61 = arith.select %60, %out, %cst_18 : f32
        linalg.yield %61 : f32
      } -> tensor<64x32xf32, #acc>
      %42 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.maxnumf %in, %out : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %cst_17 = arith.constant 0.180336878 : f32
      %43 = tensor.empty() : tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%43 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %in, %cst_17 : f32
        %cst_18 = arith.constant 0.000000e+00 : f32
        %cst_19 = arith.constant 0xFF800000 : f32
        %55 = arith.cmpf oeq, %in, %cst_19 : f32
        %56 = arith.select %55, %cst_18, %54 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%41 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.negf %in : f32
        %55 = math.fma %out, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64x32xf32, #acc>
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %44 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_18: f32, %out: f32):
        %54 = arith.negf %in_18 : f32
        %55 = math.fma %in, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %49 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%48 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.addf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %50 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64x64xf32, #acc>
      %51 = tensor.empty() : tensor<64x32xbf16, #acc>
      %52 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %54 = arith.truncf %in : f32 to bf16
        linalg.yield %54 : bf16
      } -> tensor<64x32xbf16, #acc>
      %53 = linalg.matmul ins(%52, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%50 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %53, %42, %49, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %24:4 = flash.kv_loop main %arg9 = %15 to %21 reversed iter_args(%arg10 = %23#0, %arg11 = %23#1, %arg12 = %23#2, %arg13 = %23#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %39 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %52 = linalg.index 0 : index
        %53 = arith.addi %3, %52 : index
        %54 = arith.minsi %53, %38 : index
        %55 = linalg.index 1 : index
        %56 = arith.addi %32, %55 : index
        %c7 = arith.constant 7 : index
        %57 = arith.cmpi sge, %56, %54 : index
        %58 = arith.cmpi sgt, %56, %c7 : index
        %59 = arith.ori %57, %58 : i1
        %60 = memref.load %p[%batch] : memref<?xi32>
        %61 = arith.index_cast %60 : i32 to index
        %62 = arith.cmpi eq, %56, %61 : index
        %63 = arith.cmpi sle, %56, %54 : index
        %64 = arith.ori %62, %63 : i1
        %65 = arith.andi %59, %64 : i1
        %cst_17 = arith.constant 0xFF800000 : f32
        %66 = arith.select %65, %out, %cst_17 : f32
        linalg.yield %66 : f32
      } -> tensor<64x32xf32, #acc>
      %40 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.maxnumf %in, %out : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 0.180336878 : f32
      %41 = tensor.empty() : tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%40 : tensor<64xf32, #row>) outs(%41 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %53 = arith.cmpf oeq, %in, %cst_18 : f32
        %54 = arith.select %53, %cst_17, %52 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%39 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.negf %in : f32
        %53 = math.fma %out, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = tensor.empty() : tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %42 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%44 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %52 = arith.negf %in_17 : f32
        %53 = math.fma %in, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %46 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %47 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%46 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.addf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64x64xf32, #acc>
      %49 = tensor.empty() : tensor<64x32xbf16, #acc>
      %50 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%49 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %52 = arith.truncf %in : f32 to bf16
        linalg.yield %52 : bf16
      } -> tensor<64x32xbf16, #acc>
      %51 = linalg.matmul ins(%50, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%48 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %51, %40, %47, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
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
    flash.tile_store o %26, %o[%batch, %head, %3] rows %30 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %28, %lse[%batch, %head, %3] rows %30 : tensor<64xf32, #row> -> !L
  }
  return
}
// @lone, from:
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %inside = arith.cmpi slt, %j, %pbi : index
//         flash.yield %inside : i1
//       }
func.func @lone(%q: !T, %k: !T, %v: !T, %p: memref<?xi32>, %o: !T, %lse: !L) {
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
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true, key_bounds = false>, scale = 1.250000e-01 : f32} {
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
    %23:4 = flash.kv_loop masked_right %arg9 = %21 to %13 reversed iter_args(%arg10 = %6, %arg11 = %8, %arg12 = %10, %arg13 = %22) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %c1_16 = arith.constant 1 : index
      %39 = arith.subi %dim_3, %c1_16 : index
      %40 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = arith.minsi %55, %38 : index
        %57 = linalg.index 1 : index
        %58 = arith.addi %32, %57 : index
        %59 = arith.minsi %58, %39 : index
        %60 = memref.load %p[%batch] : memref<?xi32>
        %61 = arith.index_cast %60 : i32 to index
        %62 = arith.cmpi slt, %59, %61 : index
        %cst_18 = arith.constant 0xFF800000 : f32
        %63 = arith.select %62, %out, %cst_18 : f32
        linalg.yield %63 : f32
      } -> tensor<64x32xf32, #acc>
      %41 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%40 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %54 = linalg.index 0 : index
        %55 = arith.addi %3, %54 : index
        %56 = linalg.index 1 : index
        %57 = arith.addi %32, %56 : index
        %58 = arith.subi %dim_3, %dim_1 : index
        %59 = arith.addi %55, %58 : index
        %60 = arith.cmpi slt, %57, %dim_3 : index
        %cst_18 = arith.constant 0xFF800000 : f32
        %61 = arith.select %60, %out, %cst_18 : f32
        linalg.yield %61 : f32
      } -> tensor<64x32xf32, #acc>
      %42 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%41 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.maxnumf %in, %out : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %cst_17 = arith.constant 0.180336878 : f32
      %43 = tensor.empty() : tensor<64xf32, #row>
      %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%43 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %in, %cst_17 : f32
        %cst_18 = arith.constant 0.000000e+00 : f32
        %cst_19 = arith.constant 0xFF800000 : f32
        %55 = arith.cmpf oeq, %in, %cst_19 : f32
        %56 = arith.select %55, %cst_18, %54 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<64xf32, #row>) outs(%41 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.negf %in : f32
        %55 = math.fma %out, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64x32xf32, #acc>
      %46 = tensor.empty() : tensor<64xf32, #row>
      %47 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %44 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%46 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_18: f32, %out: f32):
        %54 = arith.negf %in_18 : f32
        %55 = math.fma %in, %cst_17, %54 : f32
        %56 = math.exp2 %55 : f32
        linalg.yield %56 : f32
      } -> tensor<64xf32, #row>
      %48 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %49 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%48 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.addf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row_partial>
      %50 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %54 = arith.mulf %out, %in : f32
        linalg.yield %54 : f32
      } -> tensor<64x64xf32, #acc>
      %51 = tensor.empty() : tensor<64x32xbf16, #acc>
      %52 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64x32xf32, #acc>) outs(%51 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %54 = arith.truncf %in : f32 to bf16
        linalg.yield %54 : bf16
      } -> tensor<64x32xbf16, #acc>
      %53 = linalg.matmul ins(%52, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%50 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %53, %42, %49, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %24:4 = flash.kv_loop main %arg9 = %15 to %21 reversed iter_args(%arg10 = %23#0, %arg11 = %23#1, %arg12 = %23#2, %arg13 = %23#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %31 = flash.pipeline_advance %arg13
      %c32_13 = arith.constant 32 : index
      %32 = arith.muli %arg9, %c32_13 : index
      %33 = flash.tile_load k %k[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %34 = flash.tile_load v %v[%batch, %2, %32] limit %dim_3 slot(%arg13) : !T -> tensor<32x64xbf16, #smem>
      %35 = tensor.empty() : tensor<64x32xf32, #acc>
      %cst_14 = arith.constant 0.000000e+00 : f32
      %36 = linalg.fill ins(%cst_14 : f32) outs(%35 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %37 = linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%4, %33 : tensor<64x64xbf16, #smem>, tensor<32x64xbf16, #smem>) outs(%36 : tensor<64x32xf32, #acc>) -> tensor<64x32xf32, #acc>
      %c1_15 = arith.constant 1 : index
      %38 = arith.subi %dim_1, %c1_15 : index
      %39 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%37 : tensor<64x32xf32, #acc>) {
      ^bb0(%out: f32):
        %52 = linalg.index 0 : index
        %53 = arith.addi %3, %52 : index
        %54 = arith.minsi %53, %38 : index
        %55 = linalg.index 1 : index
        %56 = arith.addi %32, %55 : index
        %57 = memref.load %p[%batch] : memref<?xi32>
        %58 = arith.index_cast %57 : i32 to index
        %59 = arith.cmpi slt, %56, %58 : index
        %cst_17 = arith.constant 0xFF800000 : f32
        %60 = arith.select %59, %out, %cst_17 : f32
        linalg.yield %60 : f32
      } -> tensor<64x32xf32, #acc>
      %40 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<64x32xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.maxnumf %in, %out : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row>
      %cst_16 = arith.constant 0.180336878 : f32
      %41 = tensor.empty() : tensor<64xf32, #row>
      %42 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%40 : tensor<64xf32, #row>) outs(%41 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %in, %cst_16 : f32
        %cst_17 = arith.constant 0.000000e+00 : f32
        %cst_18 = arith.constant 0xFF800000 : f32
        %53 = arith.cmpf oeq, %in, %cst_18 : f32
        %54 = arith.select %53, %cst_17, %52 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %43 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<64xf32, #row>) outs(%39 : tensor<64x32xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.negf %in : f32
        %53 = math.fma %out, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64x32xf32, #acc>
      %44 = tensor.empty() : tensor<64xf32, #row>
      %45 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%arg11, %42 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%44 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_17: f32, %out: f32):
        %52 = arith.negf %in_17 : f32
        %53 = math.fma %in, %cst_16, %52 : f32
        %54 = math.exp2 %53 : f32
        linalg.yield %54 : f32
      } -> tensor<64xf32, #row>
      %46 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %47 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%46 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.addf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64xf32, #row_partial>
      %48 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %52 = arith.mulf %out, %in : f32
        linalg.yield %52 : f32
      } -> tensor<64x64xf32, #acc>
      %49 = tensor.empty() : tensor<64x32xbf16, #acc>
      %50 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<64x32xf32, #acc>) outs(%49 : tensor<64x32xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %52 = arith.truncf %in : f32 to bf16
        linalg.yield %52 : bf16
      } -> tensor<64x32xbf16, #acc>
      %51 = linalg.matmul ins(%50, %34 : tensor<64x32xbf16, #acc>, tensor<32x64xbf16, #smem>) outs(%48 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %51, %40, %47, %31 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
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
    flash.tile_store o %26, %o[%batch, %head, %3] rows %30 : tensor<64x64xbf16, #acc> -> !T
    flash.tile_store lse %28, %lse[%batch, %head, %3] rows %30 : tensor<64xf32, #row> -> !L
  }
  return
}
