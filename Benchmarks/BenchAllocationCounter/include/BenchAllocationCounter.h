// A counting allocator hook for touchstone-bench: the bench executable defines malloc,
// calloc, realloc and the aligned allocators, forwarding each to glibc's own implementation
// and, while counting is on, adding one to a process-wide counter. free is glibc's.
#ifndef BENCH_ALLOCATION_COUNTER_H
#define BENCH_ALLOCATION_COUNTER_H

/// Starts (1) or stops (0) counting.
void bench_allocation_counting(int enabled);

/// Allocation calls counted since the last reset.
long long bench_allocation_count(void);

/// Sets the count to zero.
void bench_allocation_reset(void);

#endif
