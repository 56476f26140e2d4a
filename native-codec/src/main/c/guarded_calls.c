/*
 * Foreign functions under the SIGBUS guard, so every backend fails a call over a truncated mapped file
 * as the NATIVE kernels do: ISA-L's coding functions, called through the addresses the Java side looks
 * up in libisal.so.2 (this library does not link against ISA-L), and memcmp.
 */
#include "fault_guard.h"

#include <string.h>

typedef void (*isal_encode_fn)(int len, int k, int rows, unsigned char *gftbls, unsigned char **data,
                               unsigned char **coding);
typedef void (*isal_update_fn)(int len, int k, int rows, int vec_i, unsigned char *gftbls, unsigned char *data,
                               unsigned char **coding);

typedef struct {
    void *fn;
    int len, k, rows, vec_i;
    unsigned char *gftbls;
    void *data;
    unsigned char **coding;
} isal_args;

static void encode(void *arg) {
    const isal_args *a = arg;
    ((isal_encode_fn)a->fn)(a->len, a->k, a->rows, a->gftbls, (unsigned char **)a->data, a->coding);
}

static void update(void *arg) {
    const isal_args *a = arg;
    ((isal_update_fn)a->fn)(a->len, a->k, a->rows, a->vec_i, a->gftbls, (unsigned char *)a->data, a->coding);
}

/* ec_encode_data(len, k, rows, gftbls, data, coding) at address fn; 0 or SC_FAULT. */
int sc_isal_encode(void *fn, int len, int k, int rows, unsigned char *gftbls, unsigned char **data,
                   unsigned char **coding) {
    isal_args a = { fn, len, k, rows, 0, gftbls, data, coding };
    return sc_run_guarded(encode, &a);
}

/* ec_encode_data_update(len, k, rows, vec_i, gftbls, data, coding) at address fn; 0 or SC_FAULT. */
int sc_isal_update(void *fn, int len, int k, int rows, int vec_i, unsigned char *gftbls, unsigned char *data,
                   unsigned char **coding) {
    isal_args a = { fn, len, k, rows, vec_i, gftbls, data, coding };
    return sc_run_guarded(update, &a);
}

typedef struct {
    const void *a, *b;
    int64_t n;
    int result;
} compare_args;

static void compare(void *arg) {
    compare_args *c = arg;
    c->result = memcmp(c->a, c->b, (size_t)c->n) != 0;
}

/* 0 when [a, a + n) and [b, b + n) hold the same bytes, 1 when not, SC_FAULT when either faulted. */
int sc_differ(const void *a, const void *b, int64_t n) {
    compare_args c = { a, b, n, 0 };
    return sc_run_guarded(compare, &c) != 0 ? SC_FAULT : c.result;
}
