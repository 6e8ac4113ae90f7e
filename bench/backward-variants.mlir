// The backward's kernel variants: test/PTX/backward.test compiles them and
// checks their PTX with ptxas, scripts/gpu-backward-suite.sh runs them on a
// GPU through flash-run-gpu (which evaluates the regions from this file).
// Head dims 32/64/128, bf16 and f16, with and without a causal mask, a
// window, softcap, ALiBi, a score_mod reading a capture, a score_mod with a
// non-trivial derivative and a document mask_mod.

func.func @bwd_d32_bf16(%q: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>) 
  return
}

func.func @bwd_d32_bf16_causal(%q: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal}
  return
}

func.func @bwd_d64_bf16(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) 
  return
}

func.func @bwd_d64_bf16_causal(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal}
  return
}

func.func @bwd_d64_f16_window(%q: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) {window = array<i64: 100, 0>}
  return
}

func.func @bwd_d128_bf16(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) 
  return
}

func.func @bwd_d128_bf16_causal(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal}
  return
}

func.func @bwd_d128_f16_causal(%q: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>, %do: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>)
      outs(%dq, %dk, %dv : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) {causal}
  return
}

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

func.func @bwd_d64_bf16_softcap(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T) {softcap = 30.0 : f32}
  return
}

func.func @bwd_d64_bf16_alibi_causal(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %slopes: memref<?xf32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      alibi(%slopes : memref<?xf32>)
      outs(%dq, %dk, %dv : !T, !T, !T) {causal}
  return
}

func.func @bwd_d64_bf16_relbias(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %bias: memref<?xf32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      captures(%bias : memref<?xf32>)
      outs(%dq, %dk, %dv : !T, !T, !T) score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %tb: memref<?xf32>):
        %w = memref.load %tb[%h] : memref<?xf32>
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %d = arith.subi %jj, %ii : i64
        %df = arith.sitofp %d : i64 to f32
        %r = math.fma %w, %df, %s : f32
        flash.yield %r : f32
      }
  return
}

// 2 tanh(s / 2) + s^2 / 8: a derivative that is neither 0 nor 1.
func.func @bwd_d64_bf16_tanh_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T) {causal} score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %two = arith.constant 2.0 : f32
        %eighth = arith.constant 0.125 : f32
        %x = arith.divf %s, %two : f32
        %t = math.tanh %x : f32
        %c = arith.mulf %t, %two : f32
        %sq = arith.mulf %s, %s : f32
        %r = math.fma %sq, %eighth, %c : f32
        flash.yield %r : f32
      }
  return
}

func.func @bwd_d64_bf16_docmask(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      captures(%qd, %kd : memref<?x?xi32>, memref<?x?xi32>)
      outs(%dq, %dk, %dv : !T, !T, !T) mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %a: memref<?x?xi32>, %c: memref<?x?xi32>):
        %di = memref.load %a[%b, %i] : memref<?x?xi32>
        %dj = memref.load %c[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
