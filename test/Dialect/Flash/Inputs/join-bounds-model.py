"""Exhaustive model of flash-simplify-mods' JoinBounds rule
(lib/Dialect/Flash/Transforms/FlashSimplifyMods.cpp) in W-bit two's
complement: for every pair of signed predicates, either side of each
compare, `or` and `and`, and every value of x and both bounds, the one
compare the rule builds (strictness: both alike, else inclusive for `or`
and strict for `and`; a strict/inclusive bound moved by -/+ 1 unless that
wraps; max for `or` of upper / `and` of lower bounds, else min) equals the
original. Prints the number of mismatches (lit: 0). Written to be read next
to the C++: a change of the rule there must be made here too."""
import itertools
W=5; MIN=-(1<<(W-1)); MAX=(1<<(W-1))-1
def wrap(v): return ((v-MIN)%(1<<W))+MIN
P={'slt':lambda l,r:l<r,'sle':lambda l,r:l<=r,'sgt':lambda l,r:l>r,'sge':lambda l,r:l>=r}
def bound(p,left):
    return {'slt':(left,True),'sle':(left,False),'sgt':(not left,True),'sge':(not left,False)}[p]
vals=range(MIN,MAX+1)
bad=0; n=0
for pa,pb,la,lb,isor in itertools.product(P,P,[True,False],[True,False],[True,False]):
    ua,sa=bound(pa,la); ub,sb=bound(pb,lb)
    if ua!=ub: continue
    upper=ua
    strict = sa if sa==sb else (not isor)
    def adjust(t,s):
        if s==strict: return t
        dec = (upper == (not strict))
        m = wrap(t-1) if dec else wrap(t+1)
        wr = (m>t) if dec else (m<t)
        return t if wr else m
    for x,a,b in itertools.product(vals,vals,vals):
        ca = P[pa](x,a) if la else P[pa](a,x)
        cb = P[pb](x,b) if lb else P[pb](b,x)
        orig = (ca or cb) if isor else (ca and cb)
        ta=adjust(a,sa); tb=adjust(b,sb)
        t = max(ta,tb) if (isor==upper) else min(ta,tb)
        p = ('slt' if strict else 'sle') if upper else ('sgt' if strict else 'sge')
        new = P[p](x,t)
        n+=1
        if new!=orig: bad+=1
print("cases",n,"mismatches",bad)
