// libFuzzer's driver, for targets whose own main starts it (after setting up what every run
// needs). Declared as in compiler-rt's FuzzerInterface.h; defined in the libFuzzer runtime
// that `-sanitize=fuzzer` links.
#ifndef TOUCHSTONE_CFUZZDRIVER_H
#define TOUCHSTONE_CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
