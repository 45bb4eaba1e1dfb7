#include "BenchAllocationCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

// glibc's implementations, which these definitions forward to.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic int counting;
static _Atomic long long allocations;

static inline void count_one(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

void bench_allocation_counting(int enabled) { atomic_store(&counting, enabled); }
long long bench_allocation_count(void) { return atomic_load(&allocations); }
void bench_allocation_reset(void) { atomic_store(&allocations, 0); }

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
