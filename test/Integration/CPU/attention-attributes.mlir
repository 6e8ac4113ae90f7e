// flash-run on flash.attention itself, through the default pipeline
// (flash-lower-to-cpu): the op's attributes (causal, window, softcap, scale)
// must reach the reference, with and without LSE, in both layouts. Sq > Sk
// under causal gives rows that see no key (O = 0, LSE = -inf).

// DEFINE: %{shapes} = 1,4,1,17,113;2,4,2,113,17;1,1,1,1,1;1,2,2,33,7

// RUN: flash-run %s --func=causal_window --seed=5 --shapes='%{shapes}' \
// RUN:   | FileCheck %s --check-prefix=CW
// RUN: flash-run %s --seed=16 --func=causal_window --layout=bshd --shapes='%{shapes}' \
// RUN:   | FileCheck %s --check-prefix=CW
// CW-COUNT-4: D=64 Dv=64 layout={{bhsd|bshd}}: max|dO|={{.*}} max|dLSE|={{.*}}  PASS
// CW-NEXT:    flash-run: 4/4 cases passed

// RUN: flash-run %s --seed=16 --func=scaled_no_lse --shapes='%{shapes}' \
// RUN:   | FileCheck %s --check-prefix=NOLSE
// RUN: flash-run %s --seed=16 --func=scaled_no_lse --layout=bshd --shapes='%{shapes}' \
// RUN:   | FileCheck %s --check-prefix=NOLSE
// NOLSE-COUNT-4: D=32 Dv=48 layout={{bhsd|bshd}}: max|dO|={{.*}} max|dLSE|=n/a {{.*}}  PASS
// NOLSE-NEXT:    flash-run: 4/4 cases passed

!q = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!lse = memref<?x?x?xf32>
func.func @causal_window(%q: !q, %k: !q, %v: !q, %o: !q, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !q, !q, !q) outs(%o, %lse : !q, !lse)
      {causal, window = array<i64: 5, 0>, softcap = 5.0 : f32}
  return
}

!qk = memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
!vo = memref<?x?x?x48xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @scaled_no_lse(%q: !qk, %k: !qk, %v: !vo, %o: !vo) {
  flash.attention ins(%q, %k, %v : !qk, !qk, !vo) outs(%o : !vo)
      {scale = 0.3 : f32, window = array<i64: -1, 4>}
  return
}
