// Identity layout: fine for bhsd, but cannot take BSHD strides.
!t = memref<?x?x?x64xf32>
func.func @attn(%q: !t, %k: !t, %v: !t, %o: !t, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, memref<?x?x?xf32>)
  return
}
