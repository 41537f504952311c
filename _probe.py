import numpy as np, tenferro as tf
from tenferro.batching._rules_index import _less
nan=np.nan
vals=np.array([complex(1,nan), complex(nan,0), complex(nan,nan), 1+0j, 1+1j, complex(2,nan), complex(nan,-1)])
A=vals[:,None]; Bv=vals[None,:]
got=_less(tf.asarray(np.broadcast_to(A,(7,7)).copy()), tf.asarray(np.broadcast_to(Bv,(7,7)).copy())).numpy()
# reference via sort order ranks (distinct)
order=np.argsort(vals, kind='stable'); rank=np.empty(7,int); rank[order]=np.arange(7)
want=rank[:,None]<rank[None,:]
print(np.argwhere(got!=want), vals)
