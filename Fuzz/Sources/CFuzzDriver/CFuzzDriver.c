// The declarations are in include/CFuzzDriver.h; libFuzzer defines the function.
#include "CFuzzDriver.h"
