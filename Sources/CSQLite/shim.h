#pragma once
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
/// it tells sqlite3_bind_text/blob to copy the value before returning.
static inline sqlite3_destructor_type sluice_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
