// The input of ../scan-errors.mlir: what flash-to-gpu consumes. Each function is
// `flash-opt --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv`
// of the flash.attention op quoted above it with the tiles
// `flash-plan="sm=90 wgmma=true"` chooses and `uniform_blocks = true` in its
// config, printed with type and layout aliases, the function's own argument
// names and the grid's axes named (qblock, head, batch); nothing else is
// edited. Regenerate a function from its quoted op when the
// tile level changes.

!F = memref<?x?x?x64xbf16>
#smem = #flash.frag<smem, wgmma>
#acc = #flash.frag<acc, wgmma>
#row_partial = #flash.frag<row_partial>
#row = #flash.frag<row>
#spread = #flash.frag<spread>
#uniform = #flash.frag<uniform>
#cta = #flash.frag<cta>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> (d0)>
// @docmask, from:
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         flash.yield %same : i1
//       }
func.func @docmask(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %o: !F) {
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
  %c64 = arith.constant 64 : index
  %1 = arith.ceildivsi %dim_1, %c64 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true, uniform_blocks = true>, scale = 1.250000e-01 : f32} {
    %2 = arith.divui %head, %0 : index
    %c64_6 = arith.constant 64 : index
    %3 = arith.muli %qblock, %c64_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !F -> tensor<64x64xbf16, #smem>
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
    %c64_9 = arith.constant 64 : index
    %c0_10 = arith.constant 0 : index
    %12 = arith.ceildivsi %dim_3, %c64_9 : index
    %13 = arith.maxsi %12, %c0_10 : index
    %c0_11 = arith.constant 0 : index
    %14 = arith.floordivsi %c0_11, %c64_9 : index
    %15 = arith.minsi %14, %13 : index
    %c0_12 = arith.constant 0 : index
    %16 = arith.remsi %dim_3, %c64_9 : index
    %17 = arith.cmpi ne, %16, %c0_12 : index
    %18 = arith.extui %17 : i1 to i64
    %19 = arith.index_cast %18 : i64 to index
    %20 = arith.subi %13, %19 : index
    %21 = arith.maxsi %15, %20 : index
    %c1_13 = arith.constant 1 : index
    %22 = arith.subi %dim_1, %c1_13 : index
    %23 = tensor.empty() : tensor<64xi32, #spread>
    %24 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%23 : tensor<64xi32, #spread>) {
    ^bb0(%out: i32):
      %81 = linalg.index 0 : index
      %82 = arith.addi %3, %81 : index
      %83 = arith.minsi %82, %22 : index
      %84 = memref.load %doc[%batch, %83] : memref<?x?xi32>
      linalg.yield %84 : i32
    } -> tensor<64xi32, #spread>
    %25 = memref.load %doc[%batch, %3] : memref<?x?xi32>
    %26 = tensor.empty() : tensor<i32, #uniform>
    %27 = linalg.fill ins(%25 : i32) outs(%26 : tensor<i32, #uniform>) -> tensor<i32, #uniform>
    %28 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%24 : tensor<64xi32, #spread>) outs(%27 : tensor<i32, #uniform>) {
    ^bb0(%in: i32, %out: i32):
      %81 = arith.minsi %in, %out : i32
      linalg.yield %81 : i32
    } -> tensor<i32, #uniform>
    %extracted = tensor.extract %28[] : tensor<i32, #uniform>
    %29 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%24 : tensor<64xi32, #spread>) outs(%27 : tensor<i32, #uniform>) {
    ^bb0(%in: i32, %out: i32):
      %81 = arith.maxsi %in, %out : i32
      linalg.yield %81 : i32
    } -> tensor<i32, #uniform>
    %extracted_14 = tensor.extract %29[] : tensor<i32, #uniform>
    %c64_15 = arith.constant 64 : index
    %30 = arith.muli %15, %c64_15 : index
    %c64_16 = arith.constant 64 : index
    %31 = arith.muli %13, %c64_16 : index
    %32 = arith.minsi %31, %dim_3 : index
    %c0_17 = arith.constant 0 : index
    %33 = tensor.empty() : tensor<3072xindex, #cta>
    %34 = linalg.fill ins(%32 : index) outs(%33 : tensor<3072xindex, #cta>) -> tensor<3072xindex, #cta>
    %35 = tensor.empty() : tensor<3072xindex, #cta>
    %36 = linalg.fill ins(%c0_17 : index) outs(%35 : tensor<3072xindex, #cta>) -> tensor<3072xindex, #cta>
    %37 = tensor.empty() : tensor<3072xindex, #cta>
    %38 = linalg.fill ins(%c0_17 : index) outs(%37 : tensor<3072xindex, #cta>) -> tensor<3072xindex, #cta>
    %c3072 = arith.constant 3072 : index
    %39:3 = scf.for %arg8 = %30 to %32 step %c3072 iter_args(%arg9 = %34, %arg10 = %36, %arg11 = %38) -> (tensor<3072xindex, #cta>, tensor<3072xindex, #cta>, tensor<3072xindex, #cta>) {
      %81 = tensor.empty() : tensor<3072xi1, #cta>
      %82 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%81 : tensor<3072xi1, #cta>) {
      ^bb0(%out: i1):
        %89 = linalg.index 0 : index
        %90 = arith.addi %arg8, %89 : index
        %91 = arith.cmpi slt, %90, %32 : index
        %c1_23 = arith.constant 1 : index
        %92 = arith.subi %32, %c1_23 : index
        %93 = arith.minsi %90, %92 : index
        %94 = memref.load %doc[%batch, %93] : memref<?x?xi32>
        %95 = arith.subi %94, %extracted : i32
        %96 = arith.subi %extracted_14, %extracted : i32
        %97 = arith.cmpi ule, %95, %96 : i32
        %98 = arith.andi %91, %97 : i1
        linalg.yield %98 : i1
      } -> tensor<3072xi1, #cta>
      %83 = tensor.empty() : tensor<3072xindex, #cta>
      %84 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%82, %arg9 : tensor<3072xi1, #cta>, tensor<3072xindex, #cta>) outs(%83 : tensor<3072xindex, #cta>) {
      ^bb0(%in: i1, %in_23: index, %out: index):
        %89 = linalg.index 0 : index
        %90 = arith.addi %arg8, %89 : index
        %91 = arith.minsi %in_23, %90 : index
        %92 = arith.select %in, %91, %in_23 : index
        linalg.yield %92 : index
      } -> tensor<3072xindex, #cta>
      %85 = tensor.empty() : tensor<3072xindex, #cta>
      %86 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%82, %arg10 : tensor<3072xi1, #cta>, tensor<3072xindex, #cta>) outs(%85 : tensor<3072xindex, #cta>) {
      ^bb0(%in: i1, %in_23: index, %out: index):
        %89 = linalg.index 0 : index
        %90 = arith.addi %arg8, %89 : index
        %c1_24 = arith.constant 1 : index
        %91 = arith.addi %90, %c1_24 : index
        %92 = arith.maxsi %in_23, %91 : index
        %93 = arith.select %in, %92, %in_23 : index
        linalg.yield %93 : index
      } -> tensor<3072xindex, #cta>
      %87 = tensor.empty() : tensor<3072xindex, #cta>
      %88 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%82, %arg11 : tensor<3072xi1, #cta>, tensor<3072xindex, #cta>) outs(%87 : tensor<3072xindex, #cta>) {
      ^bb0(%in: i1, %in_23: index, %out: index):
        %89 = linalg.index 0 : index
        %90 = arith.addi %arg8, %89 : index
        %c1_24 = arith.constant 1 : index
        %91 = arith.addi %in_23, %c1_24 : index
        %92 = arith.select %in, %91, %in_23 : index
        linalg.yield %92 : index
      } -> tensor<3072xindex, #cta>
      scf.yield %84, %86, %88 : tensor<3072xindex, #cta>, tensor<3072xindex, #cta>, tensor<3072xindex, #cta>
    }
    %40 = tensor.empty() : tensor<index, #uniform>
    %41 = linalg.fill ins(%32 : index) outs(%40 : tensor<index, #uniform>) -> tensor<index, #uniform>
    %42 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%39#0 : tensor<3072xindex, #cta>) outs(%41 : tensor<index, #uniform>) {
    ^bb0(%in: index, %out: index):
      %81 = arith.minsi %in, %out : index
      linalg.yield %81 : index
    } -> tensor<index, #uniform>
    %extracted_18 = tensor.extract %42[] : tensor<index, #uniform>
    %43 = tensor.empty() : tensor<index, #uniform>
    %44 = linalg.fill ins(%c0_17 : index) outs(%43 : tensor<index, #uniform>) -> tensor<index, #uniform>
    %45 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%39#1 : tensor<3072xindex, #cta>) outs(%44 : tensor<index, #uniform>) {
    ^bb0(%in: index, %out: index):
      %81 = arith.maxsi %in, %out : index
      linalg.yield %81 : index
    } -> tensor<index, #uniform>
    %extracted_19 = tensor.extract %45[] : tensor<index, #uniform>
    %46 = tensor.empty() : tensor<index, #uniform>
    %47 = linalg.fill ins(%c0_17 : index) outs(%46 : tensor<index, #uniform>) -> tensor<index, #uniform>
    %48 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%39#2 : tensor<3072xindex, #cta>) outs(%47 : tensor<index, #uniform>) {
    ^bb0(%in: index, %out: index):
      %81 = arith.addi %in, %out : index
      linalg.yield %81 : index
    } -> tensor<index, #uniform>
    %extracted_20 = tensor.extract %48[] : tensor<index, #uniform>
    %49 = arith.subi %extracted_19, %extracted_18 : index
    %50 = arith.cmpi eq, %extracted_20, %49 : index
    %51 = arith.cmpi eq, %extracted, %extracted_14 : i32
    %52 = arith.andi %51, %50 : i1
    %53 = arith.select %52, %extracted_18, %c0_17 : index
    %54 = arith.select %52, %extracted_19, %c0_17 : index
    %c64_21 = arith.constant 64 : index
    %55 = arith.floordivsi %extracted_18, %c64_21 : index
    %56 = arith.ceildivsi %extracted_19, %c64_21 : index
    %57 = arith.cmpi sle, %extracted_19, %extracted_18 : index
    %58 = arith.select %57, %55, %56 : index
    %59 = arith.minsi %58, %13 : index
    %60 = arith.maxsi %15, %59 : index
    %61 = arith.minsi %55, %60 : index
    %62 = arith.maxsi %15, %61 : index
    %63 = arith.ceildivsi %53, %c64_21 : index
    %64 = arith.maxsi %15, %63 : index
    %65 = arith.floordivsi %54, %c64_21 : index
    %66 = arith.minsi %21, %65 : index
    %67 = arith.minsi %66, %60 : index
    %68 = arith.maxsi %62, %67 : index
    %69 = arith.minsi %64, %68 : index
    %70 = arith.maxsi %62, %69 : index
    %71 = flash.pipeline_prologue stages 2
    %72:4 = flash.kv_loop masked_right %arg8 = %68 to %60 reversed iter_args(%arg9 = %6, %arg10 = %8, %arg11 = %10, %arg12 = %71) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %81 = flash.pipeline_advance %arg12
      %c64_23 = arith.constant 64 : index
      %82 = arith.muli %arg8, %c64_23 : index
      %83 = flash.tile_load k %k[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %84 = flash.tile_load v %v[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %85 = tensor.empty() : tensor<64x64xf32, #acc>
      %cst_24 = arith.constant 0.000000e+00 : f32
      %86 = linalg.fill ins(%cst_24 : f32) outs(%85 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %87 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %83 : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>) outs(%86 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %c1_25 = arith.constant 1 : index
      %88 = arith.subi %dim_1, %c1_25 : index
      %c1_26 = arith.constant 1 : index
      %89 = arith.subi %dim_3, %c1_26 : index
      %90 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%87 : tensor<64x64xf32, #acc>) {
      ^bb0(%out: f32):
        %104 = linalg.index 0 : index
        %105 = arith.addi %3, %104 : index
        %106 = arith.minsi %105, %88 : index
        %107 = linalg.index 1 : index
        %108 = arith.addi %82, %107 : index
        %109 = arith.minsi %108, %89 : index
        %110 = memref.load %doc[%batch, %106] : memref<?x?xi32>
        %111 = memref.load %doc[%batch, %109] : memref<?x?xi32>
        %112 = arith.cmpi eq, %110, %111 : i32
        %cst_28 = arith.constant 0xFF800000 : f32
        %113 = arith.select %112, %out, %cst_28 : f32
        linalg.yield %113 : f32
      } -> tensor<64x64xf32, #acc>
      %91 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x64xf32, #acc>) {
      ^bb0(%out: f32):
        %104 = linalg.index 0 : index
        %105 = arith.addi %3, %104 : index
        %106 = linalg.index 1 : index
        %107 = arith.addi %82, %106 : index
        %108 = arith.subi %dim_3, %dim_1 : index
        %109 = arith.addi %105, %108 : index
        %110 = arith.cmpi slt, %107, %dim_3 : index
        %cst_28 = arith.constant 0xFF800000 : f32
        %111 = arith.select %110, %out, %cst_28 : f32
        linalg.yield %111 : f32
      } -> tensor<64x64xf32, #acc>
      %92 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%91 : tensor<64x64xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.maxnumf %in, %out : f32
        linalg.yield %104 : f32
      } -> tensor<64xf32, #row>
      %cst_27 = arith.constant 0.180336878 : f32
      %93 = tensor.empty() : tensor<64xf32, #row>
      %94 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%92 : tensor<64xf32, #row>) outs(%93 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.mulf %in, %cst_27 : f32
        %cst_28 = arith.constant 0.000000e+00 : f32
        %cst_29 = arith.constant 0xFF800000 : f32
        %105 = arith.cmpf oeq, %in, %cst_29 : f32
        %106 = arith.select %105, %cst_28, %104 : f32
        linalg.yield %106 : f32
      } -> tensor<64xf32, #row>
      %95 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%94 : tensor<64xf32, #row>) outs(%91 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.negf %in : f32
        %105 = math.fma %out, %cst_27, %104 : f32
        %106 = math.exp2 %105 : f32
        linalg.yield %106 : f32
      } -> tensor<64x64xf32, #acc>
      %96 = tensor.empty() : tensor<64xf32, #row>
      %97 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg10, %94 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%96 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_28: f32, %out: f32):
        %104 = arith.negf %in_28 : f32
        %105 = math.fma %in, %cst_27, %104 : f32
        %106 = math.exp2 %105 : f32
        linalg.yield %106 : f32
      } -> tensor<64xf32, #row>
      %98 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%97 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.mulf %out, %in : f32
        linalg.yield %104 : f32
      } -> tensor<64xf32, #row_partial>
      %99 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%95 : tensor<64x64xf32, #acc>) outs(%98 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.addf %out, %in : f32
        linalg.yield %104 : f32
      } -> tensor<64xf32, #row_partial>
      %100 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%97 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %104 = arith.mulf %out, %in : f32
        linalg.yield %104 : f32
      } -> tensor<64x64xf32, #acc>
      %101 = tensor.empty() : tensor<64x64xbf16, #acc>
      %102 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64x64xf32, #acc>) outs(%101 : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %104 = arith.truncf %in : f32 to bf16
        linalg.yield %104 : bf16
      } -> tensor<64x64xbf16, #acc>
      %103 = linalg.matmul ins(%102, %84 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%100 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %103, %92, %99, %81 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %73:4 = flash.kv_loop main %arg8 = %70 to %68 reversed iter_args(%arg9 = %72#0, %arg10 = %72#1, %arg11 = %72#2, %arg12 = %72#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %81 = flash.pipeline_advance %arg12
      %c64_23 = arith.constant 64 : index
      %82 = arith.muli %arg8, %c64_23 : index
      %83 = flash.tile_load k %k[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %84 = flash.tile_load v %v[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %85 = tensor.empty() : tensor<64x64xf32, #acc>
      %cst_24 = arith.constant 0.000000e+00 : f32
      %86 = linalg.fill ins(%cst_24 : f32) outs(%85 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %87 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %83 : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>) outs(%86 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %88 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%87 : tensor<64x64xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.maxnumf %in, %out : f32
        linalg.yield %100 : f32
      } -> tensor<64xf32, #row>
      %cst_25 = arith.constant 0.180336878 : f32
      %89 = tensor.empty() : tensor<64xf32, #row>
      %90 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%88 : tensor<64xf32, #row>) outs(%89 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.mulf %in, %cst_25 : f32
        %cst_26 = arith.constant 0.000000e+00 : f32
        %cst_27 = arith.constant 0xFF800000 : f32
        %101 = arith.cmpf oeq, %in, %cst_27 : f32
        %102 = arith.select %101, %cst_26, %100 : f32
        linalg.yield %102 : f32
      } -> tensor<64xf32, #row>
      %91 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%90 : tensor<64xf32, #row>) outs(%87 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.negf %in : f32
        %101 = math.fma %out, %cst_25, %100 : f32
        %102 = math.exp2 %101 : f32
        linalg.yield %102 : f32
      } -> tensor<64x64xf32, #acc>
      %92 = tensor.empty() : tensor<64xf32, #row>
      %93 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg10, %90 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%92 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_26: f32, %out: f32):
        %100 = arith.negf %in_26 : f32
        %101 = math.fma %in, %cst_25, %100 : f32
        %102 = math.exp2 %101 : f32
        linalg.yield %102 : f32
      } -> tensor<64xf32, #row>
      %94 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.mulf %out, %in : f32
        linalg.yield %100 : f32
      } -> tensor<64xf32, #row_partial>
      %95 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%91 : tensor<64x64xf32, #acc>) outs(%94 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.addf %out, %in : f32
        linalg.yield %100 : f32
      } -> tensor<64xf32, #row_partial>
      %96 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %100 = arith.mulf %out, %in : f32
        linalg.yield %100 : f32
      } -> tensor<64x64xf32, #acc>
      %97 = tensor.empty() : tensor<64x64xbf16, #acc>
      %98 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%91 : tensor<64x64xf32, #acc>) outs(%97 : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %100 = arith.truncf %in : f32 to bf16
        linalg.yield %100 : bf16
      } -> tensor<64x64xbf16, #acc>
      %99 = linalg.matmul ins(%98, %84 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%96 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %99, %88, %95, %81 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %74:4 = flash.kv_loop mask_mod %arg8 = %62 to %70 reversed iter_args(%arg9 = %73#0, %arg10 = %73#1, %arg11 = %73#2, %arg12 = %73#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg12 pending 0
      flash.pipeline_prefetch %arg12 distance 1
      %81 = flash.pipeline_advance %arg12
      %c64_23 = arith.constant 64 : index
      %82 = arith.muli %arg8, %c64_23 : index
      %83 = flash.tile_load k %k[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %84 = flash.tile_load v %v[%batch, %2, %82] limit %dim_3 slot(%arg12) : !F -> tensor<64x64xbf16, #smem>
      %85 = tensor.empty() : tensor<64x64xf32, #acc>
      %cst_24 = arith.constant 0.000000e+00 : f32
      %86 = linalg.fill ins(%cst_24 : f32) outs(%85 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %87 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %83 : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>) outs(%86 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %c1_25 = arith.constant 1 : index
      %88 = arith.subi %dim_1, %c1_25 : index
      %89 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%87 : tensor<64x64xf32, #acc>) {
      ^bb0(%out: f32):
        %102 = linalg.index 0 : index
        %103 = arith.addi %3, %102 : index
        %104 = arith.minsi %103, %88 : index
        %105 = linalg.index 1 : index
        %106 = arith.addi %82, %105 : index
        %107 = memref.load %doc[%batch, %104] : memref<?x?xi32>
        %108 = memref.load %doc[%batch, %106] : memref<?x?xi32>
        %109 = arith.cmpi eq, %107, %108 : i32
        %cst_27 = arith.constant 0xFF800000 : f32
        %110 = arith.select %109, %out, %cst_27 : f32
        linalg.yield %110 : f32
      } -> tensor<64x64xf32, #acc>
      %90 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%89 : tensor<64x64xf32, #acc>) outs(%arg10 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.maxnumf %in, %out : f32
        linalg.yield %102 : f32
      } -> tensor<64xf32, #row>
      %cst_26 = arith.constant 0.180336878 : f32
      %91 = tensor.empty() : tensor<64xf32, #row>
      %92 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%90 : tensor<64xf32, #row>) outs(%91 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.mulf %in, %cst_26 : f32
        %cst_27 = arith.constant 0.000000e+00 : f32
        %cst_28 = arith.constant 0xFF800000 : f32
        %103 = arith.cmpf oeq, %in, %cst_28 : f32
        %104 = arith.select %103, %cst_27, %102 : f32
        linalg.yield %104 : f32
      } -> tensor<64xf32, #row>
      %93 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%92 : tensor<64xf32, #row>) outs(%89 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.negf %in : f32
        %103 = math.fma %out, %cst_26, %102 : f32
        %104 = math.exp2 %103 : f32
        linalg.yield %104 : f32
      } -> tensor<64x64xf32, #acc>
      %94 = tensor.empty() : tensor<64xf32, #row>
      %95 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg10, %92 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%94 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_27: f32, %out: f32):
        %102 = arith.negf %in_27 : f32
        %103 = math.fma %in, %cst_26, %102 : f32
        %104 = math.exp2 %103 : f32
        linalg.yield %104 : f32
      } -> tensor<64xf32, #row>
      %96 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%arg11 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.mulf %out, %in : f32
        linalg.yield %102 : f32
      } -> tensor<64xf32, #row_partial>
      %97 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%93 : tensor<64x64xf32, #acc>) outs(%96 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.addf %out, %in : f32
        linalg.yield %102 : f32
      } -> tensor<64xf32, #row_partial>
      %98 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%arg9 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %102 = arith.mulf %out, %in : f32
        linalg.yield %102 : f32
      } -> tensor<64x64xf32, #acc>
      %99 = tensor.empty() : tensor<64x64xbf16, #acc>
      %100 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%93 : tensor<64x64xf32, #acc>) outs(%99 : tensor<64x64xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %102 = arith.truncf %in : f32 to bf16
        linalg.yield %102 : bf16
      } -> tensor<64x64xbf16, #acc>
      %101 = linalg.matmul ins(%100, %84 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>) outs(%98 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %101, %90, %97, %81 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %75 = tensor.empty() : tensor<64x64xbf16, #acc>
    %76 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%74#0, %74#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row_partial>) outs(%75 : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %in_23: f32, %out: bf16):
      %cst_24 = arith.constant 0.000000e+00 : f32
      %81 = arith.cmpf oeq, %in_23, %cst_24 : f32
      %cst_25 = arith.constant 1.000000e+00 : f32
      %82 = arith.divf %cst_25, %in_23 : f32
      %83 = arith.select %81, %cst_24, %82 : f32
      %84 = arith.mulf %in, %83 : f32
      %85 = arith.truncf %84 : f32 to bf16
      linalg.yield %85 : bf16
    } -> tensor<64x64xbf16, #acc>
    %77 = tensor.empty() : tensor<64xf32, #row>
    %78 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%74#1, %74#2 : tensor<64xf32, #row>, tensor<64xf32, #row_partial>) outs(%77 : tensor<64xf32, #row>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %cst_24 = arith.constant 0.000000e+00 : f32
      %81 = arith.cmpf oeq, %in_23, %cst_24 : f32
      %cst_25 = arith.constant 1.250000e-01 : f32
      %82 = arith.mulf %in, %cst_25 : f32
      %83 = math.log %in_23 : f32
      %84 = arith.addf %82, %83 : f32
      %cst_26 = arith.constant 0xFF800000 : f32
      %85 = arith.select %81, %cst_26, %84 : f32
      linalg.yield %85 : f32
    } -> tensor<64xf32, #row>
    %79 = arith.subi %dim_1, %3 : index
    %c64_22 = arith.constant 64 : index
    %80 = arith.minsi %c64_22, %79 : index
    flash.tile_store o %76, %o[%batch, %head, %3] rows %80 : tensor<64x64xbf16, #acc> -> !F
  }
  return
}
// @docmask_pad, from:
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc, %pad : memref<?x?xi32>, memref<?x?xi32>) outs(%o : !F)
//       {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>, %p: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         %pj = memref.load %p[%b, %j] : memref<?x?xi32>
//         %zero = arith.constant 0 : i32
//         %real = arith.cmpi ne, %pj, %zero : i32
//         %visible = arith.andi %same, %real : i1
//         flash.yield %visible : i1
//       }
func.func @docmask_pad(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %pad: memref<?x?xi32>, %o: !F) {
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
  %c64 = arith.constant 64 : index
  %1 = arith.ceildivsi %dim_1, %c64 : index
  flash.grid (%qblock, %head, %batch) in (%1, %dim_0, %dim) attributes {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, wgmma = true, uniform_blocks = true>, scale = 1.250000e-01 : f32} {
    %2 = arith.divui %head, %0 : index
    %c64_6 = arith.constant 64 : index
    %3 = arith.muli %qblock, %c64_6 : index
    %4 = flash.tile_load q %q[%batch, %head, %3] limit %dim_1 : !F -> tensor<64x64xbf16, #smem>
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
    %c128 = arith.constant 128 : index
    %c0_9 = arith.constant 0 : index
    %12 = arith.ceildivsi %dim_3, %c128 : index
    %13 = arith.maxsi %12, %c0_9 : index
    %c0_10 = arith.constant 0 : index
    %14 = arith.floordivsi %c0_10, %c128 : index
    %15 = arith.minsi %14, %13 : index
    %c0_11 = arith.constant 0 : index
    %16 = arith.remsi %dim_3, %c128 : index
    %17 = arith.cmpi ne, %16, %c0_11 : index
    %18 = arith.extui %17 : i1 to i64
    %19 = arith.index_cast %18 : i64 to index
    %20 = arith.subi %13, %19 : index
    %21 = arith.maxsi %15, %20 : index
    %c1_12 = arith.constant 1 : index
    %22 = arith.subi %dim_1, %c1_12 : index
    %23 = tensor.empty() : tensor<64xi32, #spread>
    %24 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%23 : tensor<64xi32, #spread>) {
    ^bb0(%out: i32):
      %73 = linalg.index 0 : index
      %74 = arith.addi %3, %73 : index
      %75 = arith.minsi %74, %22 : index
      %76 = memref.load %doc[%batch, %75] : memref<?x?xi32>
      linalg.yield %76 : i32
    } -> tensor<64xi32, #spread>
    %25 = memref.load %doc[%batch, %3] : memref<?x?xi32>
    %26 = tensor.empty() : tensor<i32, #uniform>
    %27 = linalg.fill ins(%25 : i32) outs(%26 : tensor<i32, #uniform>) -> tensor<i32, #uniform>
    %28 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%24 : tensor<64xi32, #spread>) outs(%27 : tensor<i32, #uniform>) {
    ^bb0(%in: i32, %out: i32):
      %73 = arith.minsi %in, %out : i32
      linalg.yield %73 : i32
    } -> tensor<i32, #uniform>
    %extracted = tensor.extract %28[] : tensor<i32, #uniform>
    %29 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%24 : tensor<64xi32, #spread>) outs(%27 : tensor<i32, #uniform>) {
    ^bb0(%in: i32, %out: i32):
      %73 = arith.maxsi %in, %out : i32
      linalg.yield %73 : i32
    } -> tensor<i32, #uniform>
    %extracted_13 = tensor.extract %29[] : tensor<i32, #uniform>
    %c128_14 = arith.constant 128 : index
    %30 = arith.muli %15, %c128_14 : index
    %c128_15 = arith.constant 128 : index
    %31 = arith.muli %13, %c128_15 : index
    %32 = arith.minsi %31, %dim_3 : index
    %c0_16 = arith.constant 0 : index
    %33 = tensor.empty() : tensor<3072xindex, #cta>
    %34 = linalg.fill ins(%32 : index) outs(%33 : tensor<3072xindex, #cta>) -> tensor<3072xindex, #cta>
    %35 = tensor.empty() : tensor<3072xindex, #cta>
    %36 = linalg.fill ins(%c0_16 : index) outs(%35 : tensor<3072xindex, #cta>) -> tensor<3072xindex, #cta>
    %c3072 = arith.constant 3072 : index
    %37:2 = scf.for %arg9 = %30 to %32 step %c3072 iter_args(%arg10 = %34, %arg11 = %36) -> (tensor<3072xindex, #cta>, tensor<3072xindex, #cta>) {
      %73 = tensor.empty() : tensor<3072xi1, #cta>
      %74 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%73 : tensor<3072xi1, #cta>) {
      ^bb0(%out: i1):
        %79 = linalg.index 0 : index
        %80 = arith.addi %arg9, %79 : index
        %81 = arith.cmpi slt, %80, %32 : index
        %c1_21 = arith.constant 1 : index
        %82 = arith.subi %32, %c1_21 : index
        %83 = arith.minsi %80, %82 : index
        %84 = memref.load %doc[%batch, %83] : memref<?x?xi32>
        %85 = arith.subi %84, %extracted : i32
        %86 = arith.subi %extracted_13, %extracted : i32
        %87 = arith.cmpi ule, %85, %86 : i32
        %88 = arith.andi %81, %87 : i1
        linalg.yield %88 : i1
      } -> tensor<3072xi1, #cta>
      %75 = tensor.empty() : tensor<3072xindex, #cta>
      %76 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%74, %arg10 : tensor<3072xi1, #cta>, tensor<3072xindex, #cta>) outs(%75 : tensor<3072xindex, #cta>) {
      ^bb0(%in: i1, %in_21: index, %out: index):
        %79 = linalg.index 0 : index
        %80 = arith.addi %arg9, %79 : index
        %81 = arith.minsi %in_21, %80 : index
        %82 = arith.select %in, %81, %in_21 : index
        linalg.yield %82 : index
      } -> tensor<3072xindex, #cta>
      %77 = tensor.empty() : tensor<3072xindex, #cta>
      %78 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%74, %arg11 : tensor<3072xi1, #cta>, tensor<3072xindex, #cta>) outs(%77 : tensor<3072xindex, #cta>) {
      ^bb0(%in: i1, %in_21: index, %out: index):
        %79 = linalg.index 0 : index
        %80 = arith.addi %arg9, %79 : index
        %c1_22 = arith.constant 1 : index
        %81 = arith.addi %80, %c1_22 : index
        %82 = arith.maxsi %in_21, %81 : index
        %83 = arith.select %in, %82, %in_21 : index
        linalg.yield %83 : index
      } -> tensor<3072xindex, #cta>
      scf.yield %76, %78 : tensor<3072xindex, #cta>, tensor<3072xindex, #cta>
    }
    %38 = tensor.empty() : tensor<index, #uniform>
    %39 = linalg.fill ins(%32 : index) outs(%38 : tensor<index, #uniform>) -> tensor<index, #uniform>
    %40 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%37#0 : tensor<3072xindex, #cta>) outs(%39 : tensor<index, #uniform>) {
    ^bb0(%in: index, %out: index):
      %73 = arith.minsi %in, %out : index
      linalg.yield %73 : index
    } -> tensor<index, #uniform>
    %extracted_17 = tensor.extract %40[] : tensor<index, #uniform>
    %41 = tensor.empty() : tensor<index, #uniform>
    %42 = linalg.fill ins(%c0_16 : index) outs(%41 : tensor<index, #uniform>) -> tensor<index, #uniform>
    %43 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%37#1 : tensor<3072xindex, #cta>) outs(%42 : tensor<index, #uniform>) {
    ^bb0(%in: index, %out: index):
      %73 = arith.maxsi %in, %out : index
      linalg.yield %73 : index
    } -> tensor<index, #uniform>
    %extracted_18 = tensor.extract %43[] : tensor<index, #uniform>
    %c128_19 = arith.constant 128 : index
    %44 = arith.floordivsi %extracted_17, %c128_19 : index
    %45 = arith.ceildivsi %extracted_18, %c128_19 : index
    %46 = arith.cmpi sle, %extracted_18, %extracted_17 : index
    %47 = arith.select %46, %44, %45 : index
    %48 = arith.minsi %47, %13 : index
    %49 = arith.maxsi %15, %48 : index
    %50 = arith.minsi %44, %49 : index
    %51 = arith.maxsi %15, %50 : index
    %52 = arith.ceildivsi %c0_16, %c128_19 : index
    %53 = arith.maxsi %15, %52 : index
    %54 = arith.floordivsi %c0_16, %c128_19 : index
    %55 = arith.minsi %21, %54 : index
    %56 = arith.minsi %55, %49 : index
    %57 = arith.maxsi %51, %56 : index
    %58 = arith.minsi %53, %57 : index
    %59 = arith.maxsi %51, %58 : index
    %60 = arith.minsi %21, %49 : index
    %61 = arith.maxsi %57, %60 : index
    %62 = flash.pipeline_prologue stages 2
    %63:4 = flash.kv_loop masked_right %arg9 = %61 to %49 reversed iter_args(%arg10 = %6, %arg11 = %8, %arg12 = %10, %arg13 = %62) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %73 = flash.pipeline_advance %arg13
      %c128_21 = arith.constant 128 : index
      %74 = arith.muli %arg9, %c128_21 : index
      %75 = flash.tile_load k %k[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %76 = flash.tile_load v %v[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %c1_22 = arith.constant 1 : index
      %77 = arith.subi %dim_3, %c1_22 : index
      %78 = tensor.empty() : tensor<128xi32, #spread>
      %79 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%78 : tensor<128xi32, #spread>) {
      ^bb0(%out: i32):
        %87 = linalg.index 0 : index
        %88 = arith.addi %74, %87 : index
        %89 = arith.minsi %88, %77 : index
        %90 = memref.load %doc[%batch, %89] : memref<?x?xi32>
        linalg.yield %90 : i32
      } -> tensor<128xi32, #spread>
      %true = arith.constant true
      %80 = tensor.empty() : tensor<i1, #uniform>
      %81 = linalg.fill ins(%true : i1) outs(%80 : tensor<i1, #uniform>) -> tensor<i1, #uniform>
      %82 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi eq, %in, %extracted : i32
        %88 = arith.andi %out, %87 : i1
        linalg.yield %88 : i1
      } -> tensor<i1, #uniform>
      %extracted_23 = tensor.extract %82[] : tensor<i1, #uniform>
      %83 = arith.cmpi eq, %extracted, %extracted_13 : i32
      %84 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi slt, %in, %extracted : i32
        %88 = arith.cmpi sgt, %in, %extracted_13 : i32
        %89 = arith.ori %87, %88 : i1
        %90 = arith.andi %out, %89 : i1
        linalg.yield %90 : i1
      } -> tensor<i1, #uniform>
      %extracted_24 = tensor.extract %84[] : tensor<i1, #uniform>
      %85 = arith.andi %83, %extracted_23 : i1
      %86:3 = scf.if %extracted_24 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
        scf.yield %arg10, %arg11, %arg12 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      } else {
        %87:3 = scf.if %85 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %c1_27 = arith.constant 1 : index
          %92 = arith.subi %dim_3, %c1_27 : index
          %93 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %107 = linalg.index 0 : index
            %108 = arith.addi %3, %107 : index
            %109 = arith.minsi %108, %91 : index
            %110 = linalg.index 1 : index
            %111 = arith.addi %74, %110 : index
            %112 = arith.minsi %111, %92 : index
            %113 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %114 = memref.load %doc[%batch, %112] : memref<?x?xi32>
            %true_29 = arith.constant true
            %115 = memref.load %pad[%batch, %112] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %116 = arith.cmpi ne, %115, %c0_i32 : i32
            %117 = arith.andi %true_29, %116 : i1
            %cst_30 = arith.constant 0xFF800000 : f32
            %118 = arith.select %117, %out, %cst_30 : f32
            linalg.yield %118 : f32
          } -> tensor<64x128xf32, #acc>
          %94 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%93 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %107 = linalg.index 0 : index
            %108 = arith.addi %3, %107 : index
            %109 = linalg.index 1 : index
            %110 = arith.addi %74, %109 : index
            %111 = arith.subi %dim_3, %dim_1 : index
            %112 = arith.addi %108, %111 : index
            %113 = arith.cmpi slt, %110, %dim_3 : index
            %cst_29 = arith.constant 0xFF800000 : f32
            %114 = arith.select %113, %out, %cst_29 : f32
            linalg.yield %114 : f32
          } -> tensor<64x128xf32, #acc>
          %95 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%94 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.maxnumf %in, %out : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %cst_28 = arith.constant 0.180336878 : f32
          %96 = tensor.empty() : tensor<64xf32, #row>
          %97 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%96 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %in, %cst_28 : f32
            %cst_29 = arith.constant 0.000000e+00 : f32
            %cst_30 = arith.constant 0xFF800000 : f32
            %108 = arith.cmpf oeq, %in, %cst_30 : f32
            %109 = arith.select %108, %cst_29, %107 : f32
            linalg.yield %109 : f32
          } -> tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%97 : tensor<64xf32, #row>) outs(%94 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.negf %in : f32
            %108 = math.fma %out, %cst_28, %107 : f32
            %109 = math.exp2 %108 : f32
            linalg.yield %109 : f32
          } -> tensor<64x128xf32, #acc>
          %99 = tensor.empty() : tensor<64xf32, #row>
          %100 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %97 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%99 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_29: f32, %out: f32):
            %107 = arith.negf %in_29 : f32
            %108 = math.fma %in, %cst_28, %107 : f32
            %109 = math.exp2 %108 : f32
            linalg.yield %109 : f32
          } -> tensor<64xf32, #row>
          %101 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%100 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row_partial>
          %102 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%98 : tensor<64x128xf32, #acc>) outs(%101 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.addf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row_partial>
          %103 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%100 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64x64xf32, #acc>
          %104 = tensor.empty() : tensor<64x128xbf16, #acc>
          %105 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64x128xf32, #acc>) outs(%104 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %107 = arith.truncf %in : f32 to bf16
            linalg.yield %107 : bf16
          } -> tensor<64x128xbf16, #acc>
          %106 = linalg.matmul ins(%105, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%103 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %106, %95, %102 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        } else {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %c1_27 = arith.constant 1 : index
          %92 = arith.subi %dim_3, %c1_27 : index
          %93 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %107 = linalg.index 0 : index
            %108 = arith.addi %3, %107 : index
            %109 = arith.minsi %108, %91 : index
            %110 = linalg.index 1 : index
            %111 = arith.addi %74, %110 : index
            %112 = arith.minsi %111, %92 : index
            %113 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %114 = memref.load %doc[%batch, %112] : memref<?x?xi32>
            %115 = arith.cmpi eq, %113, %114 : i32
            %116 = memref.load %pad[%batch, %112] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %117 = arith.cmpi ne, %116, %c0_i32 : i32
            %118 = arith.andi %115, %117 : i1
            %cst_29 = arith.constant 0xFF800000 : f32
            %119 = arith.select %118, %out, %cst_29 : f32
            linalg.yield %119 : f32
          } -> tensor<64x128xf32, #acc>
          %94 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%93 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %107 = linalg.index 0 : index
            %108 = arith.addi %3, %107 : index
            %109 = linalg.index 1 : index
            %110 = arith.addi %74, %109 : index
            %111 = arith.subi %dim_3, %dim_1 : index
            %112 = arith.addi %108, %111 : index
            %113 = arith.cmpi slt, %110, %dim_3 : index
            %cst_29 = arith.constant 0xFF800000 : f32
            %114 = arith.select %113, %out, %cst_29 : f32
            linalg.yield %114 : f32
          } -> tensor<64x128xf32, #acc>
          %95 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%94 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.maxnumf %in, %out : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %cst_28 = arith.constant 0.180336878 : f32
          %96 = tensor.empty() : tensor<64xf32, #row>
          %97 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%96 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %in, %cst_28 : f32
            %cst_29 = arith.constant 0.000000e+00 : f32
            %cst_30 = arith.constant 0xFF800000 : f32
            %108 = arith.cmpf oeq, %in, %cst_30 : f32
            %109 = arith.select %108, %cst_29, %107 : f32
            linalg.yield %109 : f32
          } -> tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%97 : tensor<64xf32, #row>) outs(%94 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.negf %in : f32
            %108 = math.fma %out, %cst_28, %107 : f32
            %109 = math.exp2 %108 : f32
            linalg.yield %109 : f32
          } -> tensor<64x128xf32, #acc>
          %99 = tensor.empty() : tensor<64xf32, #row>
          %100 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %97 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%99 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_29: f32, %out: f32):
            %107 = arith.negf %in_29 : f32
            %108 = math.fma %in, %cst_28, %107 : f32
            %109 = math.exp2 %108 : f32
            linalg.yield %109 : f32
          } -> tensor<64xf32, #row>
          %101 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%100 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row_partial>
          %102 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%98 : tensor<64x128xf32, #acc>) outs(%101 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.addf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row_partial>
          %103 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%100 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %107 = arith.mulf %out, %in : f32
            linalg.yield %107 : f32
          } -> tensor<64x64xf32, #acc>
          %104 = tensor.empty() : tensor<64x128xbf16, #acc>
          %105 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64x128xf32, #acc>) outs(%104 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %107 = arith.truncf %in : f32 to bf16
            linalg.yield %107 : bf16
          } -> tensor<64x128xbf16, #acc>
          %106 = linalg.matmul ins(%105, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%103 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %106, %95, %102 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        }
        scf.yield %87#0, %87#1, %87#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      }
      flash.yield %86#0, %86#1, %86#2, %73 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %64:4 = flash.kv_loop mask_mod %arg9 = %57 to %61 reversed iter_args(%arg10 = %63#0, %arg11 = %63#1, %arg12 = %63#2, %arg13 = %63#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %73 = flash.pipeline_advance %arg13
      %c128_21 = arith.constant 128 : index
      %74 = arith.muli %arg9, %c128_21 : index
      %75 = flash.tile_load k %k[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %76 = flash.tile_load v %v[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %c1_22 = arith.constant 1 : index
      %77 = arith.subi %dim_3, %c1_22 : index
      %78 = tensor.empty() : tensor<128xi32, #spread>
      %79 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%78 : tensor<128xi32, #spread>) {
      ^bb0(%out: i32):
        %87 = linalg.index 0 : index
        %88 = arith.addi %74, %87 : index
        %89 = arith.minsi %88, %77 : index
        %90 = memref.load %doc[%batch, %89] : memref<?x?xi32>
        linalg.yield %90 : i32
      } -> tensor<128xi32, #spread>
      %true = arith.constant true
      %80 = tensor.empty() : tensor<i1, #uniform>
      %81 = linalg.fill ins(%true : i1) outs(%80 : tensor<i1, #uniform>) -> tensor<i1, #uniform>
      %82 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi eq, %in, %extracted : i32
        %88 = arith.andi %out, %87 : i1
        linalg.yield %88 : i1
      } -> tensor<i1, #uniform>
      %extracted_23 = tensor.extract %82[] : tensor<i1, #uniform>
      %83 = arith.cmpi eq, %extracted, %extracted_13 : i32
      %84 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi slt, %in, %extracted : i32
        %88 = arith.cmpi sgt, %in, %extracted_13 : i32
        %89 = arith.ori %87, %88 : i1
        %90 = arith.andi %out, %89 : i1
        linalg.yield %90 : i1
      } -> tensor<i1, #uniform>
      %extracted_24 = tensor.extract %84[] : tensor<i1, #uniform>
      %85 = arith.andi %83, %extracted_23 : i1
      %86:3 = scf.if %extracted_24 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
        scf.yield %arg10, %arg11, %arg12 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      } else {
        %87:3 = scf.if %85 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %92 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %105 = linalg.index 0 : index
            %106 = arith.addi %3, %105 : index
            %107 = arith.minsi %106, %91 : index
            %108 = linalg.index 1 : index
            %109 = arith.addi %74, %108 : index
            %110 = memref.load %doc[%batch, %107] : memref<?x?xi32>
            %111 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %true_28 = arith.constant true
            %112 = memref.load %pad[%batch, %109] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %113 = arith.cmpi ne, %112, %c0_i32 : i32
            %114 = arith.andi %true_28, %113 : i1
            %cst_29 = arith.constant 0xFF800000 : f32
            %115 = arith.select %114, %out, %cst_29 : f32
            linalg.yield %115 : f32
          } -> tensor<64x128xf32, #acc>
          %93 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%92 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.maxnumf %in, %out : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row>
          %cst_27 = arith.constant 0.180336878 : f32
          %94 = tensor.empty() : tensor<64xf32, #row>
          %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%94 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %in, %cst_27 : f32
            %cst_28 = arith.constant 0.000000e+00 : f32
            %cst_29 = arith.constant 0xFF800000 : f32
            %106 = arith.cmpf oeq, %in, %cst_29 : f32
            %107 = arith.select %106, %cst_28, %105 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %96 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%92 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.negf %in : f32
            %106 = math.fma %out, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64x128xf32, #acc>
          %97 = tensor.empty() : tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %95 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%97 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_28: f32, %out: f32):
            %105 = arith.negf %in_28 : f32
            %106 = math.fma %in, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %99 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %100 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%99 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.addf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %101 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64x64xf32, #acc>
          %102 = tensor.empty() : tensor<64x128xbf16, #acc>
          %103 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%102 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %105 = arith.truncf %in : f32 to bf16
            linalg.yield %105 : bf16
          } -> tensor<64x128xbf16, #acc>
          %104 = linalg.matmul ins(%103, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%101 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %104, %93, %100 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        } else {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %92 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %105 = linalg.index 0 : index
            %106 = arith.addi %3, %105 : index
            %107 = arith.minsi %106, %91 : index
            %108 = linalg.index 1 : index
            %109 = arith.addi %74, %108 : index
            %110 = memref.load %doc[%batch, %107] : memref<?x?xi32>
            %111 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %112 = arith.cmpi eq, %110, %111 : i32
            %113 = memref.load %pad[%batch, %109] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %114 = arith.cmpi ne, %113, %c0_i32 : i32
            %115 = arith.andi %112, %114 : i1
            %cst_28 = arith.constant 0xFF800000 : f32
            %116 = arith.select %115, %out, %cst_28 : f32
            linalg.yield %116 : f32
          } -> tensor<64x128xf32, #acc>
          %93 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%92 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.maxnumf %in, %out : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row>
          %cst_27 = arith.constant 0.180336878 : f32
          %94 = tensor.empty() : tensor<64xf32, #row>
          %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%94 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %in, %cst_27 : f32
            %cst_28 = arith.constant 0.000000e+00 : f32
            %cst_29 = arith.constant 0xFF800000 : f32
            %106 = arith.cmpf oeq, %in, %cst_29 : f32
            %107 = arith.select %106, %cst_28, %105 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %96 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%92 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.negf %in : f32
            %106 = math.fma %out, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64x128xf32, #acc>
          %97 = tensor.empty() : tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %95 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%97 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_28: f32, %out: f32):
            %105 = arith.negf %in_28 : f32
            %106 = math.fma %in, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %99 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %100 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%99 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.addf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %101 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64x64xf32, #acc>
          %102 = tensor.empty() : tensor<64x128xbf16, #acc>
          %103 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%102 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %105 = arith.truncf %in : f32 to bf16
            linalg.yield %105 : bf16
          } -> tensor<64x128xbf16, #acc>
          %104 = linalg.matmul ins(%103, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%101 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %104, %93, %100 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        }
        scf.yield %87#0, %87#1, %87#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      }
      flash.yield %86#0, %86#1, %86#2, %73 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %65:4 = flash.kv_loop main %arg9 = %59 to %57 reversed iter_args(%arg10 = %64#0, %arg11 = %64#1, %arg12 = %64#2, %arg13 = %64#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %73 = flash.pipeline_advance %arg13
      %c128_21 = arith.constant 128 : index
      %74 = arith.muli %arg9, %c128_21 : index
      %75 = flash.tile_load k %k[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %76 = flash.tile_load v %v[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %77 = tensor.empty() : tensor<64x128xf32, #acc>
      %cst_22 = arith.constant 0.000000e+00 : f32
      %78 = linalg.fill ins(%cst_22 : f32) outs(%77 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
      %79 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%78 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
      %80 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%79 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.maxnumf %in, %out : f32
        linalg.yield %92 : f32
      } -> tensor<64xf32, #row>
      %cst_23 = arith.constant 0.180336878 : f32
      %81 = tensor.empty() : tensor<64xf32, #row>
      %82 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%80 : tensor<64xf32, #row>) outs(%81 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.mulf %in, %cst_23 : f32
        %cst_24 = arith.constant 0.000000e+00 : f32
        %cst_25 = arith.constant 0xFF800000 : f32
        %93 = arith.cmpf oeq, %in, %cst_25 : f32
        %94 = arith.select %93, %cst_24, %92 : f32
        linalg.yield %94 : f32
      } -> tensor<64xf32, #row>
      %83 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%82 : tensor<64xf32, #row>) outs(%79 : tensor<64x128xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.negf %in : f32
        %93 = math.fma %out, %cst_23, %92 : f32
        %94 = math.exp2 %93 : f32
        linalg.yield %94 : f32
      } -> tensor<64x128xf32, #acc>
      %84 = tensor.empty() : tensor<64xf32, #row>
      %85 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %82 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%84 : tensor<64xf32, #row>) {
      ^bb0(%in: f32, %in_24: f32, %out: f32):
        %92 = arith.negf %in_24 : f32
        %93 = math.fma %in, %cst_23, %92 : f32
        %94 = math.exp2 %93 : f32
        linalg.yield %94 : f32
      } -> tensor<64xf32, #row>
      %86 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%85 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.mulf %out, %in : f32
        linalg.yield %92 : f32
      } -> tensor<64xf32, #row_partial>
      %87 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%83 : tensor<64x128xf32, #acc>) outs(%86 : tensor<64xf32, #row_partial>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.addf %out, %in : f32
        linalg.yield %92 : f32
      } -> tensor<64xf32, #row_partial>
      %88 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%85 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
      ^bb0(%in: f32, %out: f32):
        %92 = arith.mulf %out, %in : f32
        linalg.yield %92 : f32
      } -> tensor<64x64xf32, #acc>
      %89 = tensor.empty() : tensor<64x128xbf16, #acc>
      %90 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%83 : tensor<64x128xf32, #acc>) outs(%89 : tensor<64x128xbf16, #acc>) {
      ^bb0(%in: f32, %out: bf16):
        %92 = arith.truncf %in : f32 to bf16
        linalg.yield %92 : bf16
      } -> tensor<64x128xbf16, #acc>
      %91 = linalg.matmul ins(%90, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%88 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      flash.yield %91, %80, %87, %73 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    %66:4 = flash.kv_loop mask_mod %arg9 = %51 to %59 reversed iter_args(%arg10 = %65#0, %arg11 = %65#1, %arg12 = %65#2, %arg13 = %65#3) -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index) {
      flash.pipeline_wait %arg13 pending 0
      flash.pipeline_prefetch %arg13 distance 1
      %73 = flash.pipeline_advance %arg13
      %c128_21 = arith.constant 128 : index
      %74 = arith.muli %arg9, %c128_21 : index
      %75 = flash.tile_load k %k[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %76 = flash.tile_load v %v[%batch, %2, %74] limit %dim_3 slot(%arg13) : !F -> tensor<128x64xbf16, #smem>
      %c1_22 = arith.constant 1 : index
      %77 = arith.subi %dim_3, %c1_22 : index
      %78 = tensor.empty() : tensor<128xi32, #spread>
      %79 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%78 : tensor<128xi32, #spread>) {
      ^bb0(%out: i32):
        %87 = linalg.index 0 : index
        %88 = arith.addi %74, %87 : index
        %89 = arith.minsi %88, %77 : index
        %90 = memref.load %doc[%batch, %89] : memref<?x?xi32>
        linalg.yield %90 : i32
      } -> tensor<128xi32, #spread>
      %true = arith.constant true
      %80 = tensor.empty() : tensor<i1, #uniform>
      %81 = linalg.fill ins(%true : i1) outs(%80 : tensor<i1, #uniform>) -> tensor<i1, #uniform>
      %82 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi eq, %in, %extracted : i32
        %88 = arith.andi %out, %87 : i1
        linalg.yield %88 : i1
      } -> tensor<i1, #uniform>
      %extracted_23 = tensor.extract %82[] : tensor<i1, #uniform>
      %83 = arith.cmpi eq, %extracted, %extracted_13 : i32
      %84 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%79 : tensor<128xi32, #spread>) outs(%81 : tensor<i1, #uniform>) {
      ^bb0(%in: i32, %out: i1):
        %87 = arith.cmpi slt, %in, %extracted : i32
        %88 = arith.cmpi sgt, %in, %extracted_13 : i32
        %89 = arith.ori %87, %88 : i1
        %90 = arith.andi %out, %89 : i1
        linalg.yield %90 : i1
      } -> tensor<i1, #uniform>
      %extracted_24 = tensor.extract %84[] : tensor<i1, #uniform>
      %85 = arith.andi %83, %extracted_23 : i1
      %86:3 = scf.if %extracted_24 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
        scf.yield %arg10, %arg11, %arg12 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      } else {
        %87:3 = scf.if %85 -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>) {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %92 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %105 = linalg.index 0 : index
            %106 = arith.addi %3, %105 : index
            %107 = arith.minsi %106, %91 : index
            %108 = linalg.index 1 : index
            %109 = arith.addi %74, %108 : index
            %110 = memref.load %doc[%batch, %107] : memref<?x?xi32>
            %111 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %true_28 = arith.constant true
            %112 = memref.load %pad[%batch, %109] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %113 = arith.cmpi ne, %112, %c0_i32 : i32
            %114 = arith.andi %true_28, %113 : i1
            %cst_29 = arith.constant 0xFF800000 : f32
            %115 = arith.select %114, %out, %cst_29 : f32
            linalg.yield %115 : f32
          } -> tensor<64x128xf32, #acc>
          %93 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%92 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.maxnumf %in, %out : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row>
          %cst_27 = arith.constant 0.180336878 : f32
          %94 = tensor.empty() : tensor<64xf32, #row>
          %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%94 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %in, %cst_27 : f32
            %cst_28 = arith.constant 0.000000e+00 : f32
            %cst_29 = arith.constant 0xFF800000 : f32
            %106 = arith.cmpf oeq, %in, %cst_29 : f32
            %107 = arith.select %106, %cst_28, %105 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %96 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%92 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.negf %in : f32
            %106 = math.fma %out, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64x128xf32, #acc>
          %97 = tensor.empty() : tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %95 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%97 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_28: f32, %out: f32):
            %105 = arith.negf %in_28 : f32
            %106 = math.fma %in, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %99 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %100 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%99 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.addf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %101 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64x64xf32, #acc>
          %102 = tensor.empty() : tensor<64x128xbf16, #acc>
          %103 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%102 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %105 = arith.truncf %in : f32 to bf16
            linalg.yield %105 : bf16
          } -> tensor<64x128xbf16, #acc>
          %104 = linalg.matmul ins(%103, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%101 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %104, %93, %100 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        } else {
          %88 = tensor.empty() : tensor<64x128xf32, #acc>
          %cst_25 = arith.constant 0.000000e+00 : f32
          %89 = linalg.fill ins(%cst_25 : f32) outs(%88 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %90 = linalg.matmul indexing_maps = [#map2, #map3, #map4] ins(%4, %75 : tensor<64x64xbf16, #smem>, tensor<128x64xbf16, #smem>) outs(%89 : tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc>
          %c1_26 = arith.constant 1 : index
          %91 = arith.subi %dim_1, %c1_26 : index
          %92 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel", "parallel"]} outs(%90 : tensor<64x128xf32, #acc>) {
          ^bb0(%out: f32):
            %105 = linalg.index 0 : index
            %106 = arith.addi %3, %105 : index
            %107 = arith.minsi %106, %91 : index
            %108 = linalg.index 1 : index
            %109 = arith.addi %74, %108 : index
            %110 = memref.load %doc[%batch, %107] : memref<?x?xi32>
            %111 = memref.load %doc[%batch, %109] : memref<?x?xi32>
            %112 = arith.cmpi eq, %110, %111 : i32
            %113 = memref.load %pad[%batch, %109] : memref<?x?xi32>
            %c0_i32 = arith.constant 0 : i32
            %114 = arith.cmpi ne, %113, %c0_i32 : i32
            %115 = arith.andi %112, %114 : i1
            %cst_28 = arith.constant 0xFF800000 : f32
            %116 = arith.select %115, %out, %cst_28 : f32
            linalg.yield %116 : f32
          } -> tensor<64x128xf32, #acc>
          %93 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%92 : tensor<64x128xf32, #acc>) outs(%arg11 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.maxnumf %in, %out : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row>
          %cst_27 = arith.constant 0.180336878 : f32
          %94 = tensor.empty() : tensor<64xf32, #row>
          %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%93 : tensor<64xf32, #row>) outs(%94 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %in, %cst_27 : f32
            %cst_28 = arith.constant 0.000000e+00 : f32
            %cst_29 = arith.constant 0xFF800000 : f32
            %106 = arith.cmpf oeq, %in, %cst_29 : f32
            %107 = arith.select %106, %cst_28, %105 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %96 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<64xf32, #row>) outs(%92 : tensor<64x128xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.negf %in : f32
            %106 = math.fma %out, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64x128xf32, #acc>
          %97 = tensor.empty() : tensor<64xf32, #row>
          %98 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg11, %95 : tensor<64xf32, #row>, tensor<64xf32, #row>) outs(%97 : tensor<64xf32, #row>) {
          ^bb0(%in: f32, %in_28: f32, %out: f32):
            %105 = arith.negf %in_28 : f32
            %106 = math.fma %in, %cst_27, %105 : f32
            %107 = math.exp2 %106 : f32
            linalg.yield %107 : f32
          } -> tensor<64xf32, #row>
          %99 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg12 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %100 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "reduction"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%99 : tensor<64xf32, #row_partial>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.addf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64xf32, #row_partial>
          %101 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%98 : tensor<64xf32, #row>) outs(%arg10 : tensor<64x64xf32, #acc>) {
          ^bb0(%in: f32, %out: f32):
            %105 = arith.mulf %out, %in : f32
            linalg.yield %105 : f32
          } -> tensor<64x64xf32, #acc>
          %102 = tensor.empty() : tensor<64x128xbf16, #acc>
          %103 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%96 : tensor<64x128xf32, #acc>) outs(%102 : tensor<64x128xbf16, #acc>) {
          ^bb0(%in: f32, %out: bf16):
            %105 = arith.truncf %in : f32 to bf16
            linalg.yield %105 : bf16
          } -> tensor<64x128xbf16, #acc>
          %104 = linalg.matmul ins(%103, %76 : tensor<64x128xbf16, #acc>, tensor<128x64xbf16, #smem>) outs(%101 : tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
          scf.yield %104, %93, %100 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
        }
        scf.yield %87#0, %87#1, %87#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>
      }
      flash.yield %86#0, %86#1, %86#2, %73 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64xf32, #row_partial>, index
    }
    flash.pipeline_drain
    %67 = tensor.empty() : tensor<64x64xbf16, #acc>
    %68 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%66#0, %66#2 : tensor<64x64xf32, #acc>, tensor<64xf32, #row_partial>) outs(%67 : tensor<64x64xbf16, #acc>) {
    ^bb0(%in: f32, %in_21: f32, %out: bf16):
      %cst_22 = arith.constant 0.000000e+00 : f32
      %73 = arith.cmpf oeq, %in_21, %cst_22 : f32
      %cst_23 = arith.constant 1.000000e+00 : f32
      %74 = arith.divf %cst_23, %in_21 : f32
      %75 = arith.select %73, %cst_22, %74 : f32
      %76 = arith.mulf %in, %75 : f32
      %77 = arith.truncf %76 : f32 to bf16
      linalg.yield %77 : bf16
    } -> tensor<64x64xbf16, #acc>
    %69 = tensor.empty() : tensor<64xf32, #row>
    %70 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%66#1, %66#2 : tensor<64xf32, #row>, tensor<64xf32, #row_partial>) outs(%69 : tensor<64xf32, #row>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %cst_22 = arith.constant 0.000000e+00 : f32
      %73 = arith.cmpf oeq, %in_21, %cst_22 : f32
      %cst_23 = arith.constant 1.250000e-01 : f32
      %74 = arith.mulf %in, %cst_23 : f32
      %75 = math.log %in_21 : f32
      %76 = arith.addf %74, %75 : f32
      %cst_24 = arith.constant 0xFF800000 : f32
      %77 = arith.select %73, %cst_24, %76 : f32
      linalg.yield %77 : f32
    } -> tensor<64xf32, #row>
    %71 = arith.subi %dim_1, %3 : index
    %c64_20 = arith.constant 64 : index
    %72 = arith.minsi %c64_20, %71 : index
    flash.tile_store o %68, %o[%batch, %head, %3] rows %72 : tensor<64x64xbf16, #acc> -> !F
  }
  return
}
