// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer). A harness calls it from its own main: SwiftPM gives
// every executable a main, which would otherwise shadow libFuzzer's.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Runs libFuzzer with the process arguments on `callback`, and returns its exit status.
static inline int SluiceFuzz(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
