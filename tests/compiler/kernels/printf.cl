/* printf: formats of every kind, a string through a variable, a call from
 * a helper function, and a kernel that prints nothing. */
__constant char greeting[] = "from a variable";

void say(int i, float f)
{
    printf("say %d %8.3f %s\n", i, f, i & 1 ? "odd" : "even");
}

kernel void direct(global const float *x, global int *r, __constant char *name)
{
    int i = get_global_id(0);
    char16 c = (char16)(i);
    ushort8 s = (ushort8)(-i);
    float4 f4 = (float4)(x[i], 1.5f, -2.0f, 0.25f);
    double2 d2 = (double2)(x[i], 1e100);
    long2 l2 = (long2)(i, -1);
    r[i] = printf("%d %u %x %#o %c %ld %lu|%f %e %g %a|%v16hhd|%v8hx|%v4hlf|%v2lf|%v2ld|%s|%s|%s|%p|%*d|%%\n",
                  i, (uint)i, i, i, 'q', (long)i, (ulong)i, x[i], x[i], x[i], x[i], c, s, f4, d2, l2,
                  "literal", greeting, name, r, 6, i);
}

kernel void indirect(global const float *x)
{
    say((int)get_global_id(0), x[get_global_id(0)]);
}

kernel void silent(global float *x)
{
    x[get_global_id(0)] *= 2.0f;
}
