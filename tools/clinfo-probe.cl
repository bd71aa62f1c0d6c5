#define GWO(type) global type* restrict
#define GRO(type) global const type* restrict
#define BODY int i = get_global_id(0); out[i] = in1[i] + in2[i]
#define _KRN(T, N) kernel void sum##N(GWO(T##N) out, GRO(T##N) in1, GRO(T##N) in2) { BODY; }
#define KRN(N) _KRN(float, N)
KRN()
/* KRN(2)
KRN(4)
KRN(8)
KRN(16) */
