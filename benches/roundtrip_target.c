/* The benchmark's native debuggee for lldb-dap and CodeLLDB: same shape as roundtrip_target.py. */
#include <stdio.h>
#include <stdlib.h>

static long work(long i, long acc) {
    long total = acc + i * i; /* BREAK */
    return total;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long acc = 0;
    for (long i = 0; i < n; i++) {
        acc = work(i, acc);
        acc = acc % 1000003;
    }
    printf("done %ld\n", acc);
    return 0;
}
