// flash-assign-layouts' output for the f16 head-dim-32 causal backward of
// ../backward.mlir (regenerate: flash-opt --flash-tile --flash-online-softmax
// --flash-backward-recompute --flash-assign-layouts).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0, d1, d2) -> (d2, d0)>
#map7 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @causal(%arg0: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg1: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg2: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg3: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg4: memref<?x?x?xf32>, %arg5: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg6: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg7: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %arg8: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>) {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c1 = arith.constant 1 : index
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c1_1 = arith.constant 1 : index
    %dim_2 = memref.dim %arg1, %c1_1 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c2 = arith.constant 2 : index
    %dim_3 = memref.dim %arg0, %c2 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c2_4 = arith.constant 2 : index
    %dim_5 = memref.dim %arg1, %c2_4 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c64 = arith.constant 64 : index
    %0 = arith.ceildivsi %dim_3, %c64 : index
    %c0_6 = arith.constant 0 : index
    %dim_7 = memref.dim %arg0, %c0_6 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c1_8 = arith.constant 1 : index
    %dim_9 = memref.dim %arg0, %c1_8 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c2_10 = arith.constant 2 : index
    %dim_11 = memref.dim %arg0, %c2_10 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %1 = flash.workspace(%dim_7, %dim_9, %dim_11) : memref<?x?x?xf32>
    %c0_12 = arith.constant 0 : index
    %dim_13 = memref.dim %arg0, %c0_12 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c1_14 = arith.constant 1 : index
    %dim_15 = memref.dim %arg0, %c1_14 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %c2_16 = arith.constant 2 : index
    %dim_17 = memref.dim %arg0, %c2_16 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    %2 = flash.workspace(%dim_13, %dim_15, %dim_17) {zeroed} : memref<?x?x?x32xf32>
    flash.grid (%arg9, %arg10, %arg11) in (%0, %dim_0, %dim) attributes {backward = #flash<backward_step delta>, causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>, scale = 0.176776692 : f32} {
      %c64_19 = arith.constant 64 : index
      %4 = arith.muli %arg9, %c64_19 : index
      %5 = flash.tile_load o %arg3[%arg11, %arg10, %4] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      %6 = flash.tile_load do %arg5[%arg11, %arg10, %4] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      %7 = tensor.empty() : tensor<64xf32, #flash.frag<row>>
      %cst = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<64xf32, #flash.frag<row>>) -> tensor<64xf32, #flash.frag<row>>
      %9 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel", "reduction"]} ins(%6, %5 : tensor<64x32xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<acc, mma_sync>>) outs(%8 : tensor<64xf32, #flash.frag<row>>) {
      ^bb0(%in: f16, %in_21: f16, %out: f32):
        %12 = arith.extf %in : f16 to f32
        %13 = arith.extf %in_21 : f16 to f32
        %14 = arith.mulf %12, %13 : f32
        %15 = arith.addf %out, %14 : f32
        linalg.yield %15 : f32
      } -> tensor<64xf32, #flash.frag<row>>
      %10 = arith.subi %dim_3, %4 : index
      %c64_20 = arith.constant 64 : index
      %11 = arith.minsi %c64_20, %10 : index
      flash.tile_store delta %9, %1[%arg11, %arg10, %4] rows %11 : tensor<64xf32, #flash.frag<row>> -> memref<?x?x?xf32>
    }
    %c64_18 = arith.constant 64 : index
    %3 = arith.ceildivsi %dim_5, %c64_18 : index
    flash.grid (%arg9, %arg10, %arg11) in (%3, %dim_2, %dim) attributes {backward = #flash<backward_step kv>, causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>, scale = 0.176776692 : f32} {
      %c64_19 = arith.constant 64 : index
      %4 = arith.muli %arg9, %c64_19 : index
      %5 = flash.tile_load k %arg1[%arg11, %arg10, %4] limit %dim_5 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
      %6 = flash.tile_load v %arg2[%arg11, %arg10, %4] limit %dim_5 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
      %7 = tensor.empty() : tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      %cst = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      %9 = tensor.empty() : tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      %cst_20 = arith.constant 0.000000e+00 : f32
      %10 = linalg.fill ins(%cst_20 : f32) outs(%9 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      %11 = arith.divui %dim_0, %dim_2 : index
      %12 = arith.subi %dim_5, %dim_3 : index
      %c0_21 = arith.constant 0 : index
      %c0_22 = arith.constant 0 : index
      %c0_23 = arith.constant 0 : index
      %13 = arith.subi %4, %12 : index
      %14 = arith.subi %13, %c0_23 : index
      %15 = arith.maxsi %14, %c0_22 : index
      %c64_24 = arith.constant 64 : index
      %16 = arith.divui %15, %c64_24 : index
      %17 = arith.minsi %16, %0 : index
      %c1_25 = arith.constant 1 : index
      %c0_26 = arith.constant 0 : index
      %18:2 = scf.for %arg12 = %c0_26 to %11 step %c1_25 iter_args(%arg13 = %8, %arg14 = %10) -> (tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>) {
        %25 = arith.muli %arg10, %11 : index
        %26 = arith.addi %25, %arg12 : index
        %27 = arith.subi %dim_5, %dim_3 : index
        %c64_28 = arith.constant 64 : index
        %28 = arith.floordivsi %dim_3, %c64_28 : index
        %c0_29 = arith.constant 0 : index
        %c63 = arith.constant 63 : index
        %29 = arith.addi %4, %c63 : index
        %30 = arith.subi %29, %27 : index
        %31 = arith.subi %30, %c0_29 : index
        %c64_30 = arith.constant 64 : index
        %c0_31 = arith.constant 0 : index
        %32 = arith.maxsi %31, %c0_31 : index
        %33 = arith.ceildivsi %32, %c64_30 : index
        %c64_32 = arith.constant 64 : index
        %34 = arith.addi %4, %c64_32 : index
        %35 = arith.cmpi sle, %34, %dim_5 : index
        %36 = arith.select %35, %28, %33 : index
        %37 = arith.maxsi %33, %17 : index
        %38 = arith.minsi %37, %0 : index
        %39 = arith.maxsi %36, %38 : index
        %40 = arith.minsi %39, %0 : index
        %c1_33 = arith.constant 1 : index
        %41:2 = scf.for %arg15 = %17 to %38 step %c1_33 iter_args(%arg16 = %arg13, %arg17 = %arg14) -> (tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>) {
          %c64_36 = arith.constant 64 : index
          %44 = arith.muli %arg15, %c64_36 : index
          %45 = flash.tile_load q %arg0[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %46 = flash.tile_load do %arg5[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %47 = flash.tile_load lse %arg4[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %48 = flash.tile_load delta %1[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %49 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_37 = arith.constant 0.000000e+00 : f32
          %50 = linalg.fill ins(%cst_37 : f32) outs(%49 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %51 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%45, %5 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%50 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %c1_38 = arith.constant 1 : index
          %52 = arith.subi %dim_3, %c1_38 : index
          %c1_39 = arith.constant 1 : index
          %53 = arith.subi %dim_5, %c1_39 : index
          %54 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_40 = arith.constant 0.000000e+00 : f32
          %55 = linalg.fill ins(%cst_40 : f32) outs(%54 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %56:2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} outs(%51, %55 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%out: f32, %out_44: f32):
            %cst_45 = arith.constant 0.176776692 : f32
            %75 = arith.mulf %out, %cst_45 : f32
            %cst_46 = arith.constant 1.000000e+00 : f32
            %76 = linalg.index 0 : index
            %77 = arith.addi %44, %76 : index
            %78 = linalg.index 1 : index
            %79 = arith.addi %4, %78 : index
            %80 = arith.minsi %77, %52 : index
            %81 = arith.minsi %79, %53 : index
            %82 = arith.subi %dim_5, %dim_3 : index
            %83 = arith.addi %77, %82 : index
            %84 = arith.cmpi slt, %79, %dim_5 : index
            %85 = arith.cmpi sle, %79, %83 : index
            %86 = arith.andi %84, %85 : i1
            %87 = arith.cmpi slt, %77, %dim_3 : index
            %88 = arith.andi %86, %87 : i1
            %cst_47 = arith.constant 0xFF800000 : f32
            %89 = arith.select %88, %75, %cst_47 : f32
            linalg.yield %89, %cst_46 : f32, f32
          } -> (tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>)
          %57 = tensor.empty() : tensor<64xf32, #flash.frag<row>>
          %58 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #flash.frag<row>>) outs(%57 : tensor<64xf32, #flash.frag<row>>) {
          ^bb0(%in: f32, %out: f32):
            %cst_44 = arith.constant 1.44269502 : f32
            %75 = arith.mulf %in, %cst_44 : f32
            %cst_45 = arith.constant 0x7F800000 : f32
            %cst_46 = arith.constant 0xFF800000 : f32
            %76 = arith.cmpf oeq, %in, %cst_46 : f32
            %77 = arith.select %76, %cst_45, %75 : f32
            linalg.yield %77 : f32
          } -> tensor<64xf32, #flash.frag<row>>
          %59 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%58 : tensor<64xf32, #flash.frag<row>>) outs(%56#0 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f32):
            %75 = arith.negf %in : f32
            %cst_44 = arith.constant 1.44269502 : f32
            %76 = math.fma %out, %cst_44, %75 : f32
            %77 = math.exp2 %76 : f32
            linalg.yield %77 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %60 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%59 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%60 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %62 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%61, %46 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg17 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %63 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_41 = arith.constant 0.000000e+00 : f32
          %64 = linalg.fill ins(%cst_41 : f32) outs(%63 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %65 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%46, %6 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%64 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %66 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%59, %48, %56#1 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64xf32, #flash.frag<row>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%65 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %in_44: f32, %in_45: f32, %out: f32):
            %75 = arith.subf %out, %in_44 : f32
            %76 = arith.mulf %in, %75 : f32
            %77 = arith.mulf %76, %in_45 : f32
            %cst_46 = arith.constant 0.176776692 : f32
            %78 = arith.mulf %77, %cst_46 : f32
            %cst_47 = arith.constant 0.000000e+00 : f32
            %79 = arith.cmpf oeq, %in, %cst_47 : f32
            %cst_48 = arith.constant 0.000000e+00 : f32
            %80 = arith.select %79, %cst_48, %78 : f32
            linalg.yield %80 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %67 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%67 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %69 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%68, %45 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg16 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %70 = tensor.empty() : tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %cst_42 = arith.constant 0.000000e+00 : f32
          %71 = linalg.fill ins(%cst_42 : f32) outs(%70 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %72 = linalg.matmul ins(%68, %5 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%71 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %73 = arith.subi %dim_3, %44 : index
          %c64_43 = arith.constant 64 : index
          %74 = arith.minsi %c64_43, %73 : index
          flash.tile_accumulate dq %72, %2[%arg11, %26, %44] rows %74 : tensor<64x32xf32, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf32>
          scf.yield %69, %62 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>
        }
        %c1_34 = arith.constant 1 : index
        %42:2 = scf.for %arg15 = %38 to %40 step %c1_34 iter_args(%arg16 = %41#0, %arg17 = %41#1) -> (tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>) {
          %c64_36 = arith.constant 64 : index
          %44 = arith.muli %arg15, %c64_36 : index
          %45 = flash.tile_load q %arg0[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %46 = flash.tile_load do %arg5[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %47 = flash.tile_load lse %arg4[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %48 = flash.tile_load delta %1[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %49 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_37 = arith.constant 0.000000e+00 : f32
          %50 = linalg.fill ins(%cst_37 : f32) outs(%49 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %51 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%45, %5 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%50 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %c1_38 = arith.constant 1 : index
          %52 = arith.subi %dim_3, %c1_38 : index
          %c1_39 = arith.constant 1 : index
          %53 = arith.subi %dim_5, %c1_39 : index
          %54 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_40 = arith.constant 0.000000e+00 : f32
          %55 = linalg.fill ins(%cst_40 : f32) outs(%54 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %56:2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} outs(%51, %55 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%out: f32, %out_44: f32):
            %cst_45 = arith.constant 0.176776692 : f32
            %75 = arith.mulf %out, %cst_45 : f32
            %cst_46 = arith.constant 1.000000e+00 : f32
            %76 = linalg.index 0 : index
            %77 = arith.addi %44, %76 : index
            %78 = linalg.index 1 : index
            %79 = arith.addi %4, %78 : index
            %80 = arith.minsi %77, %52 : index
            %81 = arith.minsi %79, %53 : index
            linalg.yield %75, %cst_46 : f32, f32
          } -> (tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>)
          %57 = tensor.empty() : tensor<64xf32, #flash.frag<row>>
          %58 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #flash.frag<row>>) outs(%57 : tensor<64xf32, #flash.frag<row>>) {
          ^bb0(%in: f32, %out: f32):
            %cst_44 = arith.constant 1.44269502 : f32
            %75 = arith.mulf %in, %cst_44 : f32
            %cst_45 = arith.constant 0x7F800000 : f32
            %cst_46 = arith.constant 0xFF800000 : f32
            %76 = arith.cmpf oeq, %in, %cst_46 : f32
            %77 = arith.select %76, %cst_45, %75 : f32
            linalg.yield %77 : f32
          } -> tensor<64xf32, #flash.frag<row>>
          %59 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%58 : tensor<64xf32, #flash.frag<row>>) outs(%56#0 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f32):
            %75 = arith.negf %in : f32
            %cst_44 = arith.constant 1.44269502 : f32
            %76 = math.fma %out, %cst_44, %75 : f32
            %77 = math.exp2 %76 : f32
            linalg.yield %77 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %60 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%59 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%60 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %62 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%61, %46 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg17 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %63 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_41 = arith.constant 0.000000e+00 : f32
          %64 = linalg.fill ins(%cst_41 : f32) outs(%63 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %65 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%46, %6 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%64 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %66 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%59, %48, %56#1 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64xf32, #flash.frag<row>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%65 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %in_44: f32, %in_45: f32, %out: f32):
            %75 = arith.subf %out, %in_44 : f32
            %76 = arith.mulf %in, %75 : f32
            %77 = arith.mulf %76, %in_45 : f32
            %cst_46 = arith.constant 0.176776692 : f32
            %78 = arith.mulf %77, %cst_46 : f32
            %cst_47 = arith.constant 0.000000e+00 : f32
            %79 = arith.cmpf oeq, %in, %cst_47 : f32
            %cst_48 = arith.constant 0.000000e+00 : f32
            %80 = arith.select %79, %cst_48, %78 : f32
            linalg.yield %80 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %67 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%67 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %69 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%68, %45 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg16 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %70 = tensor.empty() : tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %cst_42 = arith.constant 0.000000e+00 : f32
          %71 = linalg.fill ins(%cst_42 : f32) outs(%70 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %72 = linalg.matmul ins(%68, %5 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%71 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %73 = arith.subi %dim_3, %44 : index
          %c64_43 = arith.constant 64 : index
          %74 = arith.minsi %c64_43, %73 : index
          flash.tile_accumulate dq %72, %2[%arg11, %26, %44] rows %74 : tensor<64x32xf32, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf32>
          scf.yield %69, %62 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>
        }
        %c1_35 = arith.constant 1 : index
        %43:2 = scf.for %arg15 = %40 to %0 step %c1_35 iter_args(%arg16 = %42#0, %arg17 = %42#1) -> (tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>) {
          %c64_36 = arith.constant 64 : index
          %44 = arith.muli %arg15, %c64_36 : index
          %45 = flash.tile_load q %arg0[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %46 = flash.tile_load do %arg5[%arg11, %26, %44] limit %dim_3 : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<64x32xf16, #flash.frag<smem, mma_sync>>
          %47 = flash.tile_load lse %arg4[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %48 = flash.tile_load delta %1[%arg11, %26, %44] limit %dim_3 : memref<?x?x?xf32> -> tensor<64xf32, #flash.frag<row>>
          %49 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_37 = arith.constant 0.000000e+00 : f32
          %50 = linalg.fill ins(%cst_37 : f32) outs(%49 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %51 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%45, %5 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%50 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %c1_38 = arith.constant 1 : index
          %52 = arith.subi %dim_3, %c1_38 : index
          %c1_39 = arith.constant 1 : index
          %53 = arith.subi %dim_5, %c1_39 : index
          %54 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_40 = arith.constant 0.000000e+00 : f32
          %55 = linalg.fill ins(%cst_40 : f32) outs(%54 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %56:2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} outs(%51, %55 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%out: f32, %out_44: f32):
            %cst_45 = arith.constant 0.176776692 : f32
            %75 = arith.mulf %out, %cst_45 : f32
            %cst_46 = arith.constant 1.000000e+00 : f32
            %76 = linalg.index 0 : index
            %77 = arith.addi %44, %76 : index
            %78 = linalg.index 1 : index
            %79 = arith.addi %4, %78 : index
            %80 = arith.minsi %77, %52 : index
            %81 = arith.minsi %79, %53 : index
            %82 = arith.subi %dim_5, %dim_3 : index
            %83 = arith.addi %77, %82 : index
            %84 = arith.cmpi slt, %79, %dim_5 : index
            %85 = arith.cmpi sle, %79, %83 : index
            %86 = arith.andi %84, %85 : i1
            %87 = arith.cmpi slt, %77, %dim_3 : index
            %88 = arith.andi %86, %87 : i1
            %cst_47 = arith.constant 0xFF800000 : f32
            %89 = arith.select %88, %75, %cst_47 : f32
            linalg.yield %89, %cst_46 : f32, f32
          } -> (tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>)
          %57 = tensor.empty() : tensor<64xf32, #flash.frag<row>>
          %58 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%47 : tensor<64xf32, #flash.frag<row>>) outs(%57 : tensor<64xf32, #flash.frag<row>>) {
          ^bb0(%in: f32, %out: f32):
            %cst_44 = arith.constant 1.44269502 : f32
            %75 = arith.mulf %in, %cst_44 : f32
            %cst_45 = arith.constant 0x7F800000 : f32
            %cst_46 = arith.constant 0xFF800000 : f32
            %76 = arith.cmpf oeq, %in, %cst_46 : f32
            %77 = arith.select %76, %cst_45, %75 : f32
            linalg.yield %77 : f32
          } -> tensor<64xf32, #flash.frag<row>>
          %59 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%58 : tensor<64xf32, #flash.frag<row>>) outs(%56#0 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f32):
            %75 = arith.negf %in : f32
            %cst_44 = arith.constant 1.44269502 : f32
            %76 = math.fma %out, %cst_44, %75 : f32
            %77 = math.exp2 %76 : f32
            linalg.yield %77 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %60 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%59 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%60 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %62 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%61, %46 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg17 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %63 = tensor.empty() : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %cst_41 = arith.constant 0.000000e+00 : f32
          %64 = linalg.fill ins(%cst_41 : f32) outs(%63 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %65 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%46, %6 : tensor<64x32xf16, #flash.frag<smem, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%64 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %66 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%59, %48, %56#1 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64xf32, #flash.frag<row>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%65 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %in_44: f32, %in_45: f32, %out: f32):
            %75 = arith.subf %out, %in_44 : f32
            %76 = arith.mulf %in, %75 : f32
            %77 = arith.mulf %76, %in_45 : f32
            %cst_46 = arith.constant 0.176776692 : f32
            %78 = arith.mulf %77, %cst_46 : f32
            %cst_47 = arith.constant 0.000000e+00 : f32
            %79 = arith.cmpf oeq, %in, %cst_47 : f32
            %cst_48 = arith.constant 0.000000e+00 : f32
            %80 = arith.select %79, %cst_48, %78 : f32
            linalg.yield %80 : f32
          } -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
          %67 = tensor.empty() : tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<64x64xf32, #flash.frag<acc, mma_sync>>) outs(%67 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>) {
          ^bb0(%in: f32, %out: f16):
            %75 = arith.truncf %in : f32 to f16
            linalg.yield %75 : f16
          } -> tensor<64x64xf16, #flash.frag<acc, mma_sync>>
          %69 = linalg.matmul indexing_maps = [#map6, #map7, #map4] ins(%68, %45 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%arg16 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %70 = tensor.empty() : tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %cst_42 = arith.constant 0.000000e+00 : f32
          %71 = linalg.fill ins(%cst_42 : f32) outs(%70 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %72 = linalg.matmul ins(%68, %5 : tensor<64x64xf16, #flash.frag<acc, mma_sync>>, tensor<64x32xf16, #flash.frag<smem, mma_sync>>) outs(%71 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
          %73 = arith.subi %dim_3, %44 : index
          %c64_43 = arith.constant 64 : index
          %74 = arith.minsi %c64_43, %73 : index
          flash.tile_accumulate dq %72, %2[%arg11, %26, %44] rows %74 : tensor<64x32xf32, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf32>
          scf.yield %69, %62 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>
        }
        scf.yield %43#0, %43#1 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>, tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      }
      %19 = arith.subi %dim_5, %4 : index
      %c64_27 = arith.constant 64 : index
      %20 = arith.minsi %c64_27, %19 : index
      %21 = tensor.empty() : tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18#0 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) outs(%21 : tensor<64x32xf16, #flash.frag<acc, mma_sync>>) {
      ^bb0(%in: f32, %out: f16):
        %25 = arith.truncf %in : f32 to f16
        linalg.yield %25 : f16
      } -> tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      flash.tile_store dk %22, %arg7[%arg11, %arg10, %4] rows %20 : tensor<64x32xf16, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
      %23 = tensor.empty() : tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      %24 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18#1 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) outs(%23 : tensor<64x32xf16, #flash.frag<acc, mma_sync>>) {
      ^bb0(%in: f32, %out: f16):
        %25 = arith.truncf %in : f32 to f16
        linalg.yield %25 : f16
      } -> tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      flash.tile_store dv %24, %arg8[%arg11, %arg10, %4] rows %20 : tensor<64x32xf16, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    }
    flash.grid (%arg9, %arg10, %arg11) in (%0, %dim_0, %dim) attributes {backward = #flash<backward_step dq>, causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>, scale = 0.176776692 : f32} {
      %c64_19 = arith.constant 64 : index
      %4 = arith.muli %arg9, %c64_19 : index
      %5 = flash.tile_load dq %2[%arg11, %arg10, %4] limit %dim_3 : memref<?x?x?x32xf32> -> tensor<64x32xf32, #flash.frag<acc, mma_sync>>
      %6 = arith.subi %dim_3, %4 : index
      %c64_20 = arith.constant 64 : index
      %7 = arith.minsi %c64_20, %6 : index
      %8 = tensor.empty() : tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x32xf32, #flash.frag<acc, mma_sync>>) outs(%8 : tensor<64x32xf16, #flash.frag<acc, mma_sync>>) {
      ^bb0(%in: f32, %out: f16):
        %10 = arith.truncf %in : f32 to f16
        linalg.yield %10 : f16
      } -> tensor<64x32xf16, #flash.frag<acc, mma_sync>>
      flash.tile_store dq %9, %arg6[%arg11, %arg10, %4] rows %7 : tensor<64x32xf16, #flash.frag<acc, mma_sync>> -> memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
    }
    return
  }
}

