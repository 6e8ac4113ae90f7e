// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of flash.attention and #flash.config; each
// message is checked whole so a reworded or misplaced diagnostic fails.

func.func @case0(%q: tensor<8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'query' must be a rank-4 [batch, heads, seq, head_dim] ranked tensor or memref, got 'tensor<8x128x64xf16>'}}
  flash.attention ins(%q, %k, %v : tensor<8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case1(%q: tensor<2x8x128x64xf16>, %k: tensor<*xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'key' must be a rank-4 [batch, heads, seq, head_dim] ranked tensor or memref, got 'tensor<*xf16>'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<*xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case2(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>, %o: memref<2x8x128x64xf16>) {
  // expected-error @+1 {{'value' memref must have a strided layout}}
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>) outs(%o : memref<2x8x128x64xf16>)
  return
}

// -----

func.func @case3(%q: tensor<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{query, key and value must be all tensors or all memrefs}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, memref<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case4(%q: tensor<2x8x128x64xi8>, %k: tensor<2x8x128x64xi8>, %v: tensor<2x8x128x64xi8>) {
  // expected-error @+1 {{element type must be f16, bf16 or f32, got 'i8'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xi8>, tensor<2x8x128x64xi8>, tensor<2x8x128x64xi8>) -> tensor<2x8x128x64xi8>
  return
}

// -----

func.func @case5(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xbf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{key and value must have the query's element type 'f16', got 'bf16' and 'f16'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case6(%q: tensor<2x8x128x?xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'query' head_dim must be static}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x?xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case7(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x128xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{query and key head_dim must match, got 64 and 128}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x128xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case8(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x4x128x64xf16>) {
  // expected-error @+1 {{key and value must have the same number of heads, got 8 and 4}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x4x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case9(%q: tensor<2x32x128x64xf16>, %k: tensor<2x6x128x64xf16>, %v: tensor<2x6x128x64xf16>) {
  // expected-error @+1 {{query heads (32) must be a multiple of key/value heads (6)}}
  flash.attention ins(%q, %k, %v : tensor<2x32x128x64xf16>, tensor<2x6x128x64xf16>, tensor<2x6x128x64xf16>) -> tensor<2x32x128x64xf16>
  return
}

// -----

func.func @case10(%q: tensor<2x8x128x64xf16>, %k: tensor<2x0x128x64xf16>, %v: tensor<2x0x128x64xf16>) {
  // expected-error @+1 {{key/value heads must be non-zero}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x0x128x64xf16>, tensor<2x0x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case11(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x100x64xf16>) {
  // expected-error @+1 {{key and value sequence lengths must match, got 128 and 100}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x100x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case12(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<3x8x128x64xf16>) {
  // expected-error @+1 {{key and value batch sizes must match, got 2 and 3}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<3x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case13(%q: tensor<2x8x128x64xf16>, %k: tensor<3x8x128x64xf16>, %v: tensor<3x8x128x64xf16>) {
  // expected-error @+1 {{query and key/value batch sizes must match, got 2 and 3}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<3x8x128x64xf16>, tensor<3x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case14(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: memref<8xf32>) {
  // expected-error @+1 {{'alibi' must be a ranked tensor like the query, got 'memref<8xf32>'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : memref<8xf32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case15(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: tensor<8xf16>) {
  // expected-error @+1 {{'alibi' must have element type 'f32', got 'f16'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : tensor<8xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case16(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'alibi' must have rank 1 or 2, got 3}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : tensor<1x2x8xf32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case17(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: tensor<3x8xf32>) {
  // expected-error @+1 {{'alibi' slopes must have shape [Hq] or [B, Hq] = [2, 8], got [3, 8]}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : tensor<3x8xf32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case18(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %l: tensor<4xi32>) {
  // expected-error @+1 {{'kv_lens' must have one entry per batch (2), got 4}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) kv_lens(%l : tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case19(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %l: tensor<2xi64>) {
  // expected-error @+1 {{'kv_lens' must have element type 'i32', got 'i64'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) kv_lens(%l : tensor<2xi64>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case20(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %t: tensor<2xi32>) {
  // expected-error @+1 {{'block_table' must have rank 2, got 1}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) block_table(%t : tensor<2xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case21(%q: tensor<2x8x128x64xf16>, %k: tensor<?x8x16x64xf16>, %v: tensor<?x8x16x64xf16>, %t: tensor<3x4xi32>) {
  // expected-error @+1 {{'block_table' must have one row per batch (2), got 3}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<?x8x16x64xf16>, tensor<?x8x16x64xf16>) block_table(%t : tensor<3x4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case22(%q: tensor<2x8x128x64xf16>, %k: tensor<4x8x16x64xf16>, %v: tensor<5x8x16x64xf16>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{key and value page counts must match, got 4 and 5}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<4x8x16x64xf16>, tensor<5x8x16x64xf16>) block_table(%t : tensor<2x4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case23(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>, %v: tensor<1x8x?x64xf16>, %a: tensor<4xi32>, %b: tensor<5xi32>) {
  // expected-error @+1 {{cu_seqlens_q and cu_seqlens_k must have the same length (num_seqs + 1)}}
  flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<5xi32>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @case24(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>, %v: tensor<1x8x?x64xf16>, %a: tensor<4xi32>, %b: tensor<4xi32>, %l: tensor<1xi32>) {
  // expected-error @+1 {{varlen (cu_seqlens) cannot be combined with kv_lens or block_table}}
  flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>) kv_lens(%l : tensor<1xi32>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<4xi32>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @case25(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{varlen (cu_seqlens) packs sequences along seq: query, key and value must have batch size 1, got 2}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case26(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %a: tensor<4xi32>) {
  // expected-error @+1 {{'cu_seqlens' needs both cu_seqlens_q and cu_seqlens_k}}
  "flash.attention"(%q, %k, %v, %a) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0>}> ({
  }, {
  }) : (tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case27(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be a positive finite number, got -1}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = -1.0 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case28(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be a positive finite number, got 0}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = 0.0 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case29(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be a positive finite number, got INF}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = 0x7F800000 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case30(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{softcap must be a positive finite number, got 0}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {softcap = 0.0 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case31(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{window must have two values [left, right], got 3}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {window = array<i64: 1, 2, 3>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case32(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{window values must be >= -1 (-1 = unbounded), got [-2, 0]}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {window = array<i64: -2, 0>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case33(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  // expected-error @+1 {{memref form writes its outputs to 'outs' and must not return results}}
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o : memref<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case34(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  // expected-error @+1 {{tensor form returns its outputs and must not have 'outs'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) outs(%o : memref<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case35(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{expects O and optionally LSE as results, got 0}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>)
  return
}

// -----

func.func @case36(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  // expected-error @+1 {{expects O and optionally LSE as 'outs', got 3}}
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o, %o, %o : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>)
  return
}

// -----

func.func @case37(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{outputs must be memrefs like the query, got 'tensor<2x8x128x64xf16>'}}
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>)
  return
}

// -----

func.func @case38(%q: memref<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: memref<2x8x128x64xf16>, %o: memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>) {
  // expected-error @+1 {{output memref must have a strided layout}}
  flash.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x8x128x64xf16>, memref<2x8x128x64xf16>) outs(%o : memref<2x8x128x64xf16, affine_map<(a, b, c, d) -> (a, b, c mod 8, d)>>)
  return
}

// -----

func.func @case39(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{output must have shape [B, Hq, Sq, Dv] = [2, 8, 128, 64], got [2, 8, 128, 32]}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x32xf16>
  return
}

// -----

func.func @case40(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{output element type must be the query's ('f16'), got 'f32'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf32>
  return
}

// -----

func.func @case41(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{LSE must have shape [B, Hq, Sq] = [2, 8, 128], got [2, 8]}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>, tensor<2x8xf32>
  return
}

// -----

func.func @case42(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{LSE element type must be f32, got 'f16'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf16>
  return
}

// -----

func.func @case43(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{block_m and block_n must be in [1, 65536], got 0 and 64}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 0, block_n = 64, warps = 4, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case44(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{warps must be in [1, 32] (a CUDA block has at most 1024 threads), got 0}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 0, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case45(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{stages must be in [1, 64], got -1}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = -1>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @case46(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{splits must be in [0, 65536] (0 = chosen at run time), got -2}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, splits = -2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @wgmma_warps(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{wgmma needs whole warpgroups with 16 rows per warp (warps a multiple of 4, block_m = 16 * warps), got 4 warps and block_m = 128}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2, wgmma = true>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @producer_needs_wgmma(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{a producer warpgroup needs wgmma = true}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 3, producer = true>} -> tensor<2x8x128x64xf16>
  return
}

// -----

// Ping-pong alternates exactly two consumer warpgroups beside a producer.
func.func @pingpong_needs_producer(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{pingpong alternates two consumer warpgroups: it needs producer = true and warps = 8, got no producer and 8 warps}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, pingpong = true>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @pingpong_needs_two_warpgroups(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{pingpong alternates two consumer warpgroups: it needs producer = true and warps = 8, got 4 warps}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 3, wgmma = true, producer = true, pingpong = true>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @config_key(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{expected 'splits', 'wgmma', 'producer', 'pingpong', 'producer_regs', 'key_bounds' or 'uniform_blocks', got 'stage'}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, stage = 3>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @syntax(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{expected 'ins'}}
  %o = flash.attention (%q, %k, %v) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @partial_lse_missing(%q: memref<1x8x1x64xf16>, %op: memref<3x1x8x1x64xf32>) {
  // expected-error @+1 {{the partial (split-KV) form takes O_part and LSE_part memrefs as 'outs'}}
  flash.attention ins(%q, %q, %q : memref<1x8x1x64xf16>, memref<1x8x1x64xf16>, memref<1x8x1x64xf16>) outs(%op : memref<3x1x8x1x64xf32>)
  return
}

// -----

func.func @partial_shape(%q: memref<1x8x1x64xf16>, %op: memref<3x1x4x1x64xf32>, %lp: memref<3x1x4x1xf32>) {
  // expected-error @+1 {{O_part must have shape [S, B, Hq, Sq, Dv] = [3, 1, 8, 1, 64], got [3, 1, 4, 1, 64]}}
  flash.attention ins(%q, %q, %q : memref<1x8x1x64xf16>, memref<1x8x1x64xf16>, memref<1x8x1x64xf16>) outs(%op, %lp : memref<3x1x4x1x64xf32>, memref<3x1x4x1xf32>)
  return
}

// -----

func.func @partial_f16(%q: memref<1x8x1x64xf16>, %op: memref<3x1x8x1x64xf16>, %lp: memref<3x1x8x1xf32>) {
  // expected-error @+1 {{O_part and LSE_part must be f32}}
  flash.attention ins(%q, %q, %q : memref<1x8x1x64xf16>, memref<1x8x1x64xf16>, memref<1x8x1x64xf16>) outs(%op, %lp : memref<3x1x8x1x64xf16>, memref<3x1x8x1xf32>)
  return
}

// -----

func.func @combine_rank(%op: memref<3x1x8x64xf32>, %lp: memref<3x1x8xf32>, %o: memref<1x8x1x64xf16>) {
  // expected-error @+1 {{partial_out must be [S, B, H, Sq, Dv] and partial_lse [S, B, H, Sq]}}
  flash.combine ins(%op, %lp : memref<3x1x8x64xf32>, memref<3x1x8xf32>) outs(%o : memref<1x8x1x64xf16>)
  return
}

// -----

func.func @combine_lse_mismatch(%op: memref<3x1x8x1x64xf32>, %lp: memref<2x1x8x1xf32>, %o: memref<1x8x1x64xf16>) {
  // expected-error @+1 {{partial_lse shape [2, 1, 8, 1] does not match partial_out [3, 1, 8, 1, 64]}}
  flash.combine ins(%op, %lp : memref<3x1x8x1x64xf32>, memref<2x1x8x1xf32>) outs(%o : memref<1x8x1x64xf16>)
  return
}

// -----

func.func @combine_out_shape(%op: memref<3x1x8x1x64xf32>, %lp: memref<3x1x8x1xf32>, %o: memref<1x8x2x64xf16>) {
  // expected-error @+1 {{O must have shape [B, H, Sq, Dv] = [1, 8, 1, 64], got [1, 8, 2, 64]}}
  flash.combine ins(%op, %lp : memref<3x1x8x1x64xf32>, memref<3x1x8x1xf32>) outs(%o : memref<1x8x2x64xf16>)
  return
}

// -----

func.func @combine_lse_type(%op: memref<3x1x8x1x64xf32>, %lp: memref<3x1x8x1xf32>, %o: memref<1x8x1x64xf16>, %lse: memref<1x8x1xf16>) {
  // expected-error @+1 {{LSE must be f32 [B, H, Sq] = [1, 8, 1], got 'memref<1x8x1xf16>'}}
  flash.combine ins(%op, %lp : memref<3x1x8x1x64xf32>, memref<3x1x8x1xf32>) outs(%o, %lse : memref<1x8x1x64xf16>, memref<1x8x1xf16>)
  return
}

// -----

func.func @combine_f16_parts(%op: memref<3x1x8x1x64xf16>, %lp: memref<3x1x8x1xf32>, %o: memref<1x8x1x64xf16>) {
  // expected-error @+1 {{partial_out and partial_lse must be f32}}
  flash.combine ins(%op, %lp : memref<3x1x8x1x64xf16>, memref<3x1x8x1xf32>) outs(%o : memref<1x8x1x64xf16>)
  return
}

// -----

// With 2 stages the turns and the producer's ring would deadlock.
func.func @pingpong_needs_three_stages(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{pingpong needs stages >= 3 (with 2, a warpgroup's turn would wait on a block the producer publishes only after that warpgroup's release), got 2}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true, pingpong = true>} -> tensor<2x8x128x64xf16>
  return
}

// -----

// producer_regs: the producer's setmaxnreg beside 8 consumer warps.
func.func @producer_regs_needs_producer(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{producer_regs sets the producer warpgroup's registers beside 8 consumer warps: it needs producer = true and warps = 8}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer_regs = 40>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @producer_regs_granule(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{producer_regs must be a multiple of 8 in [24, 168], got 44}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer = true, producer_regs = 44>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @producer_regs_range(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{producer_regs must be a multiple of 8 in [24, 168], got -8}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer = true, producer_regs = -8>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @uniform_blocks_pingpong(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{uniform_blocks does not go with pingpong: the turns go around the KV loop body's GEMMs, which the per-block branches would split}}
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true, uniform_blocks = true>} -> tensor<2x8x128x64xf16>
  return
}
